/**
 * Benchmark helpers. Every figure is reported as a ratio against a baseline measured in the same run,
 * on the same machine, so results from different machines stay comparable.
 *
 * A bench file is `bench/<name>.bench.ts` exporting `default async function (): Promise<void>`; `pnpm bench`
 * (bench/run.ts) runs them all, or those whose name contains one of the command-line arguments. They run
 * compiled (`tsc -b` emits them into bench/dist), like the server they measure.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { closeSync, copyFileSync, existsSync, fdatasyncSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
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

/**
 * One HTTP load: `connections` connections sending the same request, or requests that vary through
 * templates, in which `{n}` is a per-request counter (1, 2, …) and `{v}` cycles through `values`.
 */
export interface Load {
  readonly url: string;
  readonly connections: number;
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Replaces the URL's path and query per request. */
  readonly pathTemplate?: string;
  readonly bodyTemplate?: string;
  readonly values?: readonly (string | number)[];
}

export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
}

/**
 * wrk when it is installed (a C client: it leaves the server most of the machine's second core), else
 * autocannon, which saturates its own core first (about 0.8x of wrk's figure here). BENCH_LOADER=autocannon
 * or =wrk chooses. Either way the same tool drives both sides of every ratio.
 */
export const loader: 'wrk' | 'autocannon' = (() => {
  const wanted = process.env['BENCH_LOADER'];
  if (wanted === 'wrk' || wanted === 'autocannon') return wanted;
  return spawnSync('wrk', ['--version']).error ? 'autocannon' : 'wrk';
})();

const fill = (template: string, n: number, values: readonly (string | number)[] | undefined): string =>
  template.replaceAll('{n}', String(n)).replaceAll('{v}', values && values.length > 0 ? String(values[(n - 1) % values.length]) : '');

const luaString = (text: string): string => JSON.stringify(text); // JSON string escapes are valid Lua escapes here (ASCII)

const wrkScript = (load: Load): string => {
  const url = new URL(load.url);
  const headers = Object.entries(load.headers ?? {}).map(([k, v]) => `[${luaString(k)}]=${luaString(v)}`).join(', ');
  const template = (text: string | undefined) => (text === undefined ? 'nil' : luaString(text));
  return `
local n = 0
local values = { ${(load.values ?? []).map((value) => luaString(String(value))).join(', ')} }
local headers = { ${headers} }
local function fill(text)
  if text == nil then return nil end
  local v = #values > 0 and values[((n - 1) % #values) + 1] or ""
  return (text:gsub("{n}", tostring(n)):gsub("{v}", function() return v end))
end
local pathTemplate = ${template(load.pathTemplate ?? url.pathname + url.search)}
local bodyTemplate = ${template(load.bodyTemplate ?? load.body)}
request = function()
  n = n + 1
  return wrk.format(${luaString(load.method ?? 'GET')}, fill(pathTemplate), headers, fill(bodyTemplate))
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK-RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"non2xx":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
`;
};

const runWrk = (seconds: number, load: Load): Promise<LoadResult> =>
  new Promise((resolvePromise, reject) => {
    const script = join(tmpDir, `wrk-${process.pid}-${Date.now()}.lua`);
    mkdirSync(tmpDir, { recursive: true });
    writeFileSync(script, wrkScript(load));
    const child = spawn('wrk', ['-t1', `-c${load.connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, load.url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      rmSync(script, { force: true });
      const line = /WRK-RESULT (\{.*\})/.exec(output);
      if (!line) return reject(new Error(`wrk printed no result: ${output}`));
      const r = JSON.parse(line[1]!) as { requests: number; duration_us: number; p50_us: number; p99_us: number; non2xx: number; errors: number };
      if (r.non2xx > 0 || r.errors > 0) log(`${load.url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      const ms = (us: number) => Math.round(us / 10) / 100;
      resolvePromise({ rps: r.requests / (r.duration_us / 1e6), p50: ms(r.p50_us), p99: ms(r.p99_us) });
    });
  });

const runAutocannon = async (seconds: number, load: Load): Promise<LoadResult> => {
  let n = 0;
  const varies = load.pathTemplate !== undefined || load.bodyTemplate !== undefined;
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    duration: seconds,
    ...(varies
      ? {
          requests: [
            {
              method: load.method ?? 'GET',
              headers: { ...load.headers },
              setupRequest: (request: autocannon.Request) => {
                n++;
                return {
                  ...request,
                  ...(load.pathTemplate !== undefined ? { path: fill(load.pathTemplate, n, load.values) } : {}),
                  ...(load.bodyTemplate !== undefined ? { body: fill(load.bodyTemplate, n, load.values) } : {}),
                };
              },
            },
          ],
        }
      : { method: load.method ?? 'GET', headers: { ...load.headers }, ...(load.body !== undefined ? { body: load.body } : {}) }),
  });
  if (result.non2xx > 0 || result.errors > 0) log(`${load.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
};

/** Drives HTTP load for `seconds` with `loader` (or the tool given). */
export const httpLoad = (seconds: number, load: Load, using: 'wrk' | 'autocannon' = loader): Promise<LoadResult> =>
  using === 'wrk' ? runWrk(seconds, load) : runAutocannon(seconds, load);

/** The node flags `pnpm start` runs `forgefold serve` with (package.json's start script): the served process runs with them. */
export const serveNodeFlags = (): string[] => {
  const { scripts } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const flags = /\bnode ((?:--\S+ )*)packages\/cli\/bin\/forgefold\.js serve/.exec(scripts['start'] ?? '');
  if (!flags) throw new Error("package.json's start script does not run packages/cli/bin/forgefold.js serve");
  return flags[1]!.trim().split(' ').filter(Boolean);
};

/** Starts `forgefold serve` as `pnpm start` runs it (its node flags), in its own process on a free port, at synchronous=FULL (the server's default). */
export const startForgefoldProcess = (dataDir: string, rootToken: string) =>
  startServerProcess([...serveNodeFlags(), join(repoRoot, 'packages/cli/bin/forgefold.js'), 'serve'], {
    PORT: '0',
    FORGEFOLD_DATA: dataDir,
    FORGEFOLD_ROOT_TOKEN: rootToken,
    FORGEFOLD_ACCESS_LOG: 'false',
    FORGEFOLD_SYNCHRONOUS: 'FULL',
  });

/** Median latency in ms of sequential GETs of one page; a nonce per request defeats the response cache, so each reads the projection and renders. */
export const pageLatency = async (url: string, headers: Record<string, string>, ms: number): Promise<number> => {
  let nonce = 0;
  const separator = url.includes('?') ? '&' : '?';
  const result = await throughput(
    async () => {
      const response = await fetch(`${url}${separator}nonce=${nonce++}`, { headers });
      if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
      await response.arrayBuffer();
    },
    { ms, minIterations: 50, warmup: 20 },
  );
  return percentile(result.latencies, 50);
};

/**
 * CPU time (user + system, all threads: the WAL flushes on libuv's pool, the checkpoint and snapshot workers) a
 * process has used so far, in ms; NaN where /proc is not there. On a machine shared with other work, a server's
 * latency and throughput say how much CPU it was given; its CPU per request says what a request costs.
 */
export const processCpuMs = (pid: number | undefined): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime (fields 14 and 15 of stat, 12 and 13 after the command) in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
};

/**
 * The floor a durable commit sits on: p50 and p99 (ms) of `count` fdatasyncs of a 4 KiB append in `dir`, what the
 * WAL flush of each batch costs on this disk at this moment (a shared disk has a long tail).
 */
export const fdatasyncLatency = (dir: string, count = 100): { p50: number; p99: number } => {
  const path = join(dir, `fdatasync-probe-${process.pid}`);
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4096, 1);
  const times: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      writeSync(fd, block);
      const start = now();
      fdatasyncSync(fd);
      times.push(now() - start);
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)) };
};
