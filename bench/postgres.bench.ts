/**
 * PostgreSQL benchmarks (issue 15). Needs a server: `scripts/with-postgres.sh pnpm bench postgres` (it reads
 * FORGEFOLD_BENCH_DATABASE_URL, else FORGEFOLD_TEST_DATABASE_URL; each case works in a schema of its own).
 *  (a) one-event appends through the store, one at a time, vs a raw INSERT loop on the same server (autocommit,
 *      one row per transaction); target ≥ 0.5x;
 *  (b) 100 concurrent writers through the Application (group commit) vs 100 concurrent raw one-row
 *      transactions on a pool of the same size; target ≥ 2x;
 *  (c) uncached reads on two nodes (two `forgefold serve` processes on one database) vs one node; target ≥ 1.5x
 *      (on two cores the load generator and PostgreSQL share them with the nodes: see the note);
 *  (d) a members page (`/groups/:id/members/all`, uncached) on PostgreSQL vs SQLite.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import postgres from 'postgres';
import { startForgefold, type RunningForgefold } from '@forgefold/cli';
import { Application, EventRegistry, defineEvents, systemActor, type Decider, type ForgefoldCommand } from '@forgefold/core';
import { dropSchema, openPostgresStore } from '@forgefold/postgres-store';
import * as t from 'io-ts';
import { envInt, httpLoad, loader, log, percentile, Report, repoRoot, serveNodeFlags, startServerProcess, stopServerProcess, throughput, pageLatency } from './lib.js';

const MS = envInt('BENCH_MS', 3_000);
const DURATION = envInt('BENCH_HTTP_SECONDS', 5);
const TOKEN = 'glpat-bench-postgres-root-000';
const PAGE_HEADERS = { 'PRIVATE-TOKEN': TOKEN };

const baseUrl = process.env['FORGEFOLD_BENCH_DATABASE_URL'] ?? process.env['FORGEFOLD_TEST_DATABASE_URL'] ?? '';
const withSchema = (schema: string): string => {
  const url = new URL(baseUrl);
  url.searchParams.set('schema', schema);
  return url.toString();
};
const newSchema = (name: string) => `bench_${name}_${process.pid}`;

/** A toy domain: each command appends one event to one of 100 streams. */
const toyEvents = defineEvents({ Noted: { codec: t.type({ n: t.number }), version: 1, stream: (d: { n: number }) => `note-${d.n % 100}` } });
const toyDecider: Decider<{ readonly n: number }, never, { count: number }> = {
  initialState: () => ({ count: 0 }),
  decide: ({ command }) => E.right([{ type: 'Noted', data: { n: command.n } } as never]),
  evolve: (state) => {
    state.count++;
  },
};

const raw = (schema: string, max: number) => {
  const sql = postgres(baseUrl.replace(/[?&]schema=[^&]*/, ''), { max, onnotice: () => undefined });
  return {
    sql,
    setup: async () => {
      await sql.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await sql.unsafe(`CREATE TABLE "${schema}".raw (id bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, stream_id text NOT NULL, data text NOT NULL)`);
    },
    insert: (n: number) => sql.unsafe(`INSERT INTO "${schema}".raw (event_id, stream_id, data) VALUES ($1, $2, $3)`, [randomUUID(), `s-${n % 100}`, JSON.stringify({ n })], { prepare: true }),
  };
};

/** Runs `writers` loops of `fn` for about `ms`; returns completed calls per second. */
const concurrent = async (writers: number, ms: number, fn: (n: number) => Promise<unknown>): Promise<number> => {
  let n = 0;
  let done = 0;
  const until = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (performance.now() < until) {
        await fn(n++);
        done++;
      }
    }),
  );
  return (done / (performance.now() - started)) * 1_000;
};

const startNode = (databaseUrl: string, dataDir: string) =>
  startServerProcess([...serveNodeFlags(), join(repoRoot, 'packages/cli/bin/forgefold.js'), 'serve'], {
    PORT: '0',
    FORGEFOLD_DATA: dataDir,
    FORGEFOLD_DATABASE_URL: databaseUrl,
    FORGEFOLD_ROOT_TOKEN: TOKEN,
    FORGEFOLD_ACCESS_LOG: 'false',
  });

const must = async (server: RunningForgefold, command: ForgefoldCommand) => {
  const result = await server.app.execute(systemActor, command);
  if (result._tag === 'Left') throw new Error(`${command.type}: ${JSON.stringify(result.left)}`);
  return result.right;
};

/** `members` users in one group, through the application. Returns the group id. */
const fillGroup = async (server: RunningForgefold, members: number): Promise<number> => {
  const first = server.app.state.sequences.user + 1;
  await Promise.all(Array.from({ length: members }, (_, i) => must(server, { type: 'CreateUser', username: `m${i}`, name: `Member ${i}`, email: `m${i}@example.com`, password_digest: null })));
  const group = await must(server, { type: 'CreateGroup', name: 'Bench', path: 'bench' });
  const id = (group.events[0]!.data as { id: number }).id;
  for (let i = 0; i < members; i += 100) {
    const ids = Array.from({ length: Math.min(100, members - i) }, (_, k) => String(first + i + k));
    await must(server, { type: 'AddMembers', source_type: 'Namespace', source_id: id, user_ids: ids, access_level: 30 });
  }
  return id;
};

export default async function postgresBench(): Promise<void> {
  if (!baseUrl) {
    log('no PostgreSQL: run `scripts/with-postgres.sh pnpm bench postgres` (or set FORGEFOLD_BENCH_DATABASE_URL)');
    return;
  }
  const report = new Report(`PostgreSQL (${loader}; ${MS} ms per store case, ${DURATION} s per HTTP case)`);
  const schemas: string[] = [];
  try {
    // (a) sequential appends vs a raw INSERT loop.
    {
      const schema = newSchema('raw');
      schemas.push(schema);
      const baseline = raw(schema, 1);
      await baseline.setup();
      let n = 0;
      const inserts = await throughput(() => baseline.insert(n++), { ms: MS, warmup: 50 });
      await baseline.sql.end();
      report.add('raw INSERT, 1 row per transaction, sequential', inserts.opsPerSec, 'rows/s');
      const appendSchema = newSchema('append');
      schemas.push(appendSchema);
      const store = await openPostgresStore({ url: withSchema(appendSchema), maxConnections: 1 });
      let m = 0;
      const appends = await throughput(
        () => store.events.append(`s-${m % 100}`, 'any', [{ eventId: randomUUID(), type: 'Noted', schemaVersion: 1, data: { n: m++ }, recordedAt: new Date().toISOString(), metadata: { actorId: null, origin: 'system' } }]),
        { ms: MS, warmup: 50 },
      );
      await store.close();
      report.add('store.append, 1 event, sequential', appends.opsPerSec, 'events/s', {
        baseline: 'raw INSERT, 1 row per transaction, sequential',
        target: { ratio: 0.5, text: '≥ 0.5x' },
        note: `p50 ${percentile(appends.latencies, 50).toFixed(2)} ms vs ${percentile(inserts.latencies, 50).toFixed(2)} ms`,
      });
    }

    // (b) 100 concurrent writers: group commit vs raw one-row transactions.
    {
      const schema = newSchema('raw100');
      schemas.push(schema);
      const baseline = raw(schema, 10);
      await baseline.setup();
      await concurrent(100, 300, (n) => baseline.insert(n));
      const rawRate = await concurrent(100, MS, (n) => baseline.insert(n + 1_000_000));
      await baseline.sql.end();
      report.add('raw one-row transactions, 100 writers, pool of 10', rawRate, 'rows/s');
      const appSchema = newSchema('app100');
      schemas.push(appSchema);
      const store = await openPostgresStore({ url: withSchema(appSchema), maxConnections: 10 });
      const app = await Application.start({
        decider: toyDecider as never,
        registry: new EventRegistry(toyEvents),
        store: store.events,
        clock: { now: () => new Date().toISOString() },
        ids: { eventId: () => randomUUID() },
        projectionVersion: 'toy-1',
        freeze: false,
      });
      const run = (n: number) => app.execute({ userId: null, origin: 'system' }, { n } as never);
      await concurrent(100, 300, run);
      const appRate = await concurrent(100, MS, (n) => run(n + 1_000_000));
      await store.close();
      report.add('Application commands, 100 writers (group commit)', appRate, 'commands/s', {
        baseline: 'raw one-row transactions, 100 writers, pool of 10',
        target: { ratio: 2, text: '≥ 2x' },
      });
    }

    // (c) uncached reads on one node vs two nodes on one database.
    {
      const schema = newSchema('nodes');
      schemas.push(schema);
      const url = withSchema(schema);
      const dirs = [mkdtempSync(join(tmpdir(), 'forgefold-bench-pg-a-')), mkdtempSync(join(tmpdir(), 'forgefold-bench-pg-b-'))];
      const builder = await startForgefold(
        { port: 0, host: '127.0.0.1', dataDir: dirs[0]!, rootToken: TOKEN, synchronous: 'NORMAL', impersonationEnabled: true, snapshotEvery: 0, accessLog: false, databaseUrl: url },
        { say: () => undefined, log: () => undefined },
      );
      await Promise.all(Array.from({ length: 200 }, (_, i) => must(builder, { type: 'CreateGroup', name: `Group ${i}`, path: `group-${i}` })));
      await builder.close();
      const nodes = await Promise.all(dirs.map((dir) => startNode(url, dir)));
      try {
        const load = (node: { url: string }, connections: number) => ({
          url: `${node.url}/api/v4/groups?per_page=20`,
          connections,
          headers: { 'PRIVATE-TOKEN': TOKEN },
          pathTemplate: '/api/v4/groups?per_page=20&nonce={n}',
        });
        await Promise.all(nodes.map((node) => httpLoad(2, load(node, 10)))); // warm-up (JIT)
        let one = 0;
        let two = 0;
        for (let round = 0; round < 2; round++) {
          one = Math.max(one, (await httpLoad(DURATION, load(nodes[0]!, 20))).rps);
          const both = await Promise.all(nodes.map((node) => httpLoad(DURATION, load(node, 10))));
          two = Math.max(two, both[0]!.rps + both[1]!.rps);
        }
        report.add('GET /groups (uncached), one node, 20 conns', one, 'ops/s');
        report.add('GET /groups (uncached), two nodes, 10 conns each', two, 'ops/s', {
          baseline: 'GET /groups (uncached), one node, 20 conns',
          target: { ratio: 1.5, text: '≥ 1.5x' },
          note: 'two cores for two nodes, the load generator(s) and PostgreSQL',
        });
      } finally {
        for (const node of nodes) await stopServerProcess(node.child);
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      }
    }

    // (d) a members page on PostgreSQL vs SQLite (both served from the node's projections).
    {
      const members = envInt('BENCH_PG_MEMBERS', 2_000);
      const latency: Record<string, number> = {};
      for (const kind of ['sqlite', 'postgres'] as const) {
        const dir = mkdtempSync(join(tmpdir(), `forgefold-bench-pg-members-${kind}-`));
        const schema = newSchema('members');
        if (kind === 'postgres') schemas.push(schema);
        try {
          const server = await startForgefold(
            {
              port: 0,
              host: '127.0.0.1',
              dataDir: dir,
              rootToken: TOKEN,
              synchronous: 'NORMAL',
              impersonationEnabled: true,
              snapshotEvery: 0,
              accessLog: false,
              ...(kind === 'postgres' ? { databaseUrl: withSchema(schema) } : {}),
            },
            { say: () => undefined, log: () => undefined },
          );
          const group = await fillGroup(server, members);
          latency[kind] = await pageLatency(`${server.url}/api/v4/groups/${group}/members/all?per_page=20`, PAGE_HEADERS, MS);
          await server.close();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      report.add(`page of /members/all (${members} members), SQLite`, latency['sqlite']!, 'ms', { note: 'median of sequential uncached requests' });
      report.add(`page of /members/all (${members} members), PostgreSQL`, latency['postgres']!, 'ms', {
        baseline: `page of /members/all (${members} members), SQLite`,
        target: { ratio: 0.8, text: 'about as fast (reads come from the projections)' },
      });
    }
  } finally {
    for (const schema of schemas) await dropSchema(baseUrl, schema).catch(() => undefined);
  }
  report.print();
}
