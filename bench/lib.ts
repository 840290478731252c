/**
 * Benchmark helpers. Every figure is reported as a ratio against a baseline measured in the same run,
 * on the same machine, so results from different machines stay comparable.
 *
 * A bench file is `bench/<name>.bench.ts` exporting `default async function (): Promise<void>`; `pnpm bench`
 * (bench/run.ts) runs them all, or those whose name contains one of the command-line arguments. They run
 * compiled (`tsc -b` emits them under node_modules/.cache/tsc-bench), like the server they measure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the bench modules are (their compiled copies, when run by `pnpm bench`). */
export const benchDir = dirname(fileURLToPath(import.meta.url));
/** The repository: the nearest directory above the bench modules with pnpm-workspace.yaml. */
export const repoRoot = ((): string => {
  for (let dir = benchDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no pnpm-workspace.yaml above ${benchDir}`);
  }
})();
/** Scratch space for databases (gitignored). */
export const tmpDir = join(repoRoot, '.bench-tmp');

/** Reads a positive integer from the environment (e.g. BENCH_EVENTS=100000 for a quick run). */
export const envInt = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return Math.floor(value);
};

export const now = (): number => performance.now();
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `fn` once and returns its duration in ms (and its value). */
export const timed = async <T>(fn: () => T | Promise<T>): Promise<{ ms: number; value: T }> => {
  const start = now();
  const value = await fn();
  return { ms: now() - start, value };
};

/** Calls `fn` repeatedly for about `ms` milliseconds (at least `minIterations` times); returns ops/s and per-call latencies. */
export const throughput = async (fn: (i: number) => unknown, options: { ms?: number; minIterations?: number; warmup?: number } = {}) => {
  const { ms = 2_000, minIterations = 20, warmup = 10 } = options;
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const latencies: number[] = [];
  const start = now();
  let i = 0;
  for (; i < minIterations || now() - start < ms; i++) {
    const t0 = now();
    await fn(i);
    latencies.push(now() - t0);
  }
  const elapsed = now() - start;
  return { opsPerSec: (i / elapsed) * 1_000, iterations: i, elapsedMs: elapsed, latencies };
};

export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

export type Unit = 'ops/s' | 'ms' | 'events/s' | 'commands/s' | 'rows/s';
const higherIsBetter = (unit: Unit) => unit !== 'ms';

interface Row {
  readonly name: string;
  readonly value: number;
  readonly unit: Unit;
  readonly baseline?: string;
  readonly note?: string;
  readonly target?: { readonly ratio: number; readonly text: string };
}

const format = (value: number): string =>
  value >= 100_000 ? value.toExponential(2) : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

/**
 * A table of results. Baselines are rows like any other; a row that names a baseline is shown as
 * "ratio x" where ratio > 1 is always better (a speed-up), whatever the unit.
 */
export class Report {
  private readonly rows: Row[] = [];
  constructor(readonly title: string) {}

  add(name: string, value: number, unit: Unit, options: { baseline?: string; note?: string; target?: { ratio: number; text: string } } = {}): this {
    this.rows.push({ name, value, unit, ...options });
    return this;
  }

  /** The ratio of row `name` against its baseline (> 1 is better). */
  ratio(name: string): number {
    const row = this.rows.find((r) => r.name === name);
    if (!row?.baseline) return NaN;
    const base = this.rows.find((r) => r.name === row.baseline);
    if (!base) return NaN;
    return higherIsBetter(row.unit) ? row.value / base.value : base.value / row.value;
  }

  print(): void {
    const lines: string[][] = [['case', 'value', 'vs baseline', 'target', 'note']];
    for (const row of this.rows) {
      const ratio = this.ratio(row.name);
      const verdict = row.target ? `${row.target.text} ${ratio >= row.target.ratio ? 'OK' : 'MISSED'}` : '';
      lines.push([
        row.name,
        `${format(row.value)} ${row.unit}`,
        Number.isNaN(ratio) ? (row.baseline ? '?' : 'baseline') : `${ratio.toFixed(2)}x ${row.baseline}`,
        verdict,
        row.note ?? '',
      ]);
    }
    const widths = lines[0]!.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
    console.log(`\n## ${this.title}\n`);
    lines.forEach((line, index) => {
      console.log(`| ${line.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`);
      if (index === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
    });
  }
}

/** A fresh path under .bench-tmp/ (with its -wal/-shm removed). */
export const scratchPath = (name: string): string => {
  mkdirSync(tmpDir, { recursive: true });
  const path = join(tmpDir, name);
  removeDb(path);
  return path;
};

export const removeDb = (path: string): void => {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
};

/** Copies a (closed, checkpointed) database file to a fresh scratch path. */
export const copyDb = (from: string, name: string): string => {
  const to = scratchPath(name);
  copyFileSync(from, to);
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
  return to;
};

export const log = (message: string): void => {
  console.log(`  · ${message}`);
};

/** Starts a server process (`node …args`) and resolves once it prints "listening on http://…". */
export const startServerProcess = (args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/i.exec(output);
      if (match) resolvePromise({ child, url: match[1]! });
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${output}`)));
  });

/** Stops a server process with SIGTERM and waits for it to exit. */
export const stopServerProcess = (child: ChildProcess) =>
  new Promise<void>((resolvePromise) => {
    child.removeAllListeners('exit');
    child.on('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });

/** Drives HTTP load with autocannon for `seconds`; the same tool on both sides of every ratio. */
export const httpLoad = async (seconds: number, options: autocannon.Options) => {
  const result = await autocannon({ duration: seconds, ...options });
  if (result.non2xx > 0 || result.errors > 0) log(`${options.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
};

/** Starts `forgefold serve` in its own process on a free port, at synchronous=FULL (the server's default). */
export const startForgefoldProcess = (dataDir: string, rootToken: string) =>
  startServerProcess([join(repoRoot, 'packages/cli/bin/forgefold.js'), 'serve'], {
    PORT: '0',
    FORGEFOLD_DATA: dataDir,
    FORGEFOLD_ROOT_TOKEN: rootToken,
    FORGEFOLD_ACCESS_LOG: 'false',
    FORGEFOLD_SYNCHRONOUS: 'FULL',
  });
