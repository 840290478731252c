/**
 * Page cost of the lists of a non-administrator against the size of the instance (issue 16, scale of reads):
 * `GET /groups` (default: the caller's groups; and all_available=true) and `GET /projects` (public, internal and the
 * caller's), per_page=20, as a user who belongs to 20 groups (one project each) and sees 20 public groups and
 * projects, with 1,000 and with BENCH_LISTS_BIG (100,000) private groups and projects of others. Target: the big
 * instance's page takes < 2x as long. Sequential uncached requests (the user acts through the administrator's token
 * and `Sudo`). Each size is a server process of its own (lists-instance.ts); the two are measured in alternation,
 * BENCH_LISTS_ROUNDS rounds of every case, so that the load of a shared machine weighs on both sides alike: each
 * figure is the median of its rounds' medians.
 */
import { join } from 'node:path';
import { benchDir, envInt, log, Report, pageLatency, startServerProcess, stopServerProcess } from './lib.js';

const BIG = envInt('BENCH_LISTS_BIG', 100_000);
const MS = envInt('BENCH_MS', 2_000);
const ROUNDS = envInt('BENCH_LISTS_ROUNDS', 5);
const TOKEN = 'glpat-bench-lists-root-00000';
const PAGE_HEADERS = { 'PRIVATE-TOKEN': TOKEN, Sudo: 'viewer' };

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

const CASES = {
  'GET /groups': '/api/v4/groups?per_page=20',
  'GET /groups?all_available=true': '/api/v4/groups?per_page=20&all_available=true',
  'GET /projects': '/api/v4/projects?per_page=20',
  'GET /projects?membership=true': '/api/v4/projects?per_page=20&membership=true',
} as const;

export default async function listsBench(): Promise<void> {
  const report = new Report('Lists of a non-administrator: page cost vs instance size (per_page=20, median of sequential requests)');
  const sizes = [1_000, BIG] as const;
  log(`building ${sizes.join(' and ')} groups and projects, each in its own process…`);
  const instances = await Promise.all(
    sizes.map((size) => startServerProcess([join(benchDir, 'lists-instance.js')], { BENCH_LISTS_SIZE: String(size), BENCH_LISTS_TOKEN: TOKEN })),
  );
  const rounds: Record<number, Record<string, number[]>> = { [sizes[0]]: {}, [sizes[1]]: {} };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, path] of Object.entries(CASES)) {
        // Alternate which size goes first, so that neither always follows the other.
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const index of order) {
          const size = sizes[index]!;
          (rounds[size]![name] ??= []).push(await pageLatency(`${instances[index]!.url}${path}`, PAGE_HEADERS, MS / ROUNDS));
        }
      }
    }
  } finally {
    await Promise.all(instances.map((instance) => stopServerProcess(instance.child)));
  }
  for (const name of Object.keys(CASES)) {
    report.add(`${name}, 1,000 groups/projects`, median(rounds[sizes[0]]![name]!), 'ms');
    report.add(`${name}, ${BIG} groups/projects`, median(rounds[BIG]![name]!), 'ms', { baseline: `${name}, 1,000 groups/projects`, target: { ratio: 0.5, text: '< 2x as long' } });
  }
  report.print();
}
