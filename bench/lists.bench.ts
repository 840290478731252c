/**
 * Page cost of the lists of a non-administrator against the size of the instance (issue 16, scale of reads):
 * `GET /groups` (default: the caller's groups; and all_available=true) and `GET /projects` (public, internal and the
 * caller's), and `GET /groups/hub/projects/shared` (a public group into which the 20 public projects and every private
 * project of others are shared), per_page=20, as a user who belongs to 20 groups (one project each) and sees 20 public
 * groups and projects, with 1,000 and with BENCH_LISTS_BIG (100,000) private groups and projects of others (and as
 * many shares the user cannot see). BENCH_LISTS_CASES (comma-separated case names) runs only those cases. Target: the big
 * instance's page takes < 2x as long. Sequential uncached requests (the user acts through the administrator's token
 * and `Sudo`). Each size is a server process of its own (lists-instance.ts); the two are measured in alternation,
 * BENCH_LISTS_ROUNDS rounds of every case, so that the load of a shared machine weighs on both sides alike: each
 * latency is the median of its rounds' medians. On Linux the server's CPU time per request (all its threads, from
 * /proc/<pid>/task/<tid>/schedstat) is reported too: waiting for a core on a loaded machine does not count in it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, envInt, log, percentile, Report, startServerProcess, stopServerProcess } from './lib.js';

const BIG = envInt('BENCH_LISTS_BIG', 100_000);
const REQUESTS = envInt('BENCH_LISTS_REQUESTS', 60);
const ROUNDS = envInt('BENCH_LISTS_ROUNDS', 5);
const TOKEN = 'glpat-bench-lists-root-00000';
const PAGE_HEADERS = { 'PRIVATE-TOKEN': TOKEN, Sudo: 'viewer' };

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/** CPU time a process has run, all threads, in ms (Linux schedstat, nanoseconds); null where there is no /proc. */
const cpuMs = (pid: number): number | null => {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // A thread that ended between the listing and the read.
      }
    }
    return ns / 1e6;
  } catch {
    return null;
  }
};

/**
 * Makes every request's URL one never asked before, across samples and rounds: the server caches rendered reads until
 * the state changes, so a nonce that started again at 0 in each sample had every round after the first answered from
 * that cache (the median of the rounds' medians was then a cached reply's latency).
 */
let nonce = 0;

/** `REQUESTS` sequential uncached requests (after a warm-up): their median latency and the server's CPU per request. */
const sample = async (url: string, pid: number): Promise<{ latency: number; cpu: number | null }> => {
  const separator = url.includes('?') ? '&' : '?';
  const once = async (): Promise<void> => {
    const response = await fetch(`${url}${separator}nonce=${nonce++}`, { headers: PAGE_HEADERS });
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    await response.arrayBuffer();
  };
  for (let i = 0; i < 10; i++) await once();
  const latencies: number[] = [];
  const cpuBefore = cpuMs(pid);
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    await once();
    latencies.push(performance.now() - started);
  }
  const cpuAfter = cpuMs(pid);
  return { latency: percentile(latencies, 50), cpu: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / REQUESTS };
};

const ALL_CASES: Record<string, string> = {
  'GET /groups': '/api/v4/groups?per_page=20',
  'GET /groups?all_available=true': '/api/v4/groups?per_page=20&all_available=true',
  'GET /projects': '/api/v4/projects?per_page=20',
  'GET /projects?membership=true': '/api/v4/projects?per_page=20&membership=true',
  'GET /groups/:id/projects/shared': '/api/v4/groups/hub/projects/shared?per_page=20',
};
const SELECTED = process.env['BENCH_LISTS_CASES']?.split(',').map((name) => name.trim()).filter((name) => name !== '');
const unknown = SELECTED?.filter((name) => !(name in ALL_CASES)) ?? [];
if (unknown.length > 0) throw new Error(`BENCH_LISTS_CASES: no case ${unknown.join(', ')} (cases: ${Object.keys(ALL_CASES).join(', ')})`);
const CASES = SELECTED ? Object.fromEntries(SELECTED.map((name) => [name, ALL_CASES[name]!])) : ALL_CASES;

export default async function listsBench(): Promise<void> {
  const report = new Report('Lists of a non-administrator: page cost vs instance size (per_page=20, median of sequential requests)');
  const sizes = [1_000, BIG] as const;
  log(`building ${sizes.join(' and ')} groups and projects (and shares), each in its own process…`);
  const instances = await Promise.all(
    sizes.map((size) => startServerProcess([join(benchDir, 'lists-instance.js')], { BENCH_LISTS_SIZE: String(size), BENCH_LISTS_TOKEN: TOKEN })),
  );
  const latencies: Record<number, Record<string, number[]>> = { [sizes[0]]: {}, [sizes[1]]: {} };
  const cpus: Record<number, Record<string, number[]>> = { [sizes[0]]: {}, [sizes[1]]: {} };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, path] of Object.entries(CASES)) {
        // Alternate which size goes first, so that neither always follows the other.
        for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
          const size = sizes[index]!;
          const { latency, cpu } = await sample(`${instances[index]!.url}${path}`, instances[index]!.child.pid!);
          (latencies[size]![name] ??= []).push(latency);
          if (cpu !== null) (cpus[size]![name] ??= []).push(cpu);
        }
      }
    }
  } finally {
    await Promise.all(instances.map((instance) => stopServerProcess(instance.child)));
  }
  const target = { ratio: 0.5, text: '< 2x as long' };
  for (const name of Object.keys(CASES)) {
    report.add(`${name}, 1,000 groups/projects`, median(latencies[sizes[0]]![name]!), 'ms');
    report.add(`${name}, ${BIG} groups/projects`, median(latencies[BIG]![name]!), 'ms', { baseline: `${name}, 1,000 groups/projects`, target });
  }
  for (const name of Object.keys(CASES)) {
    if (cpus[sizes[0]]![name] === undefined || cpus[BIG]![name] === undefined) continue;
    report.add(`${name}, 1,000: server CPU per request`, median(cpus[sizes[0]]![name]!), 'ms');
    report.add(`${name}, ${BIG}: server CPU per request`, median(cpus[BIG]![name]!), 'ms', { baseline: `${name}, 1,000: server CPU per request`, target });
  }
  report.print();
}
