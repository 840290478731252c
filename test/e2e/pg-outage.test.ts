/**
 * PostgreSQL dies under load (`pg_ctl stop -m immediate`, no checkpoint): the node answers writes 503 with
 * Retry-After while it is down (reads keep being served from its projections), recovers by itself once the
 * server is back, and nothing it acknowledged is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '@forgefold/postgres-store';
import { startServer, type TestServer } from '../support/server.js';
import { canStartClusters, startCluster, type Cluster } from '../support/pg-cluster.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!canStartClusters())('PostgreSQL outage under load', () => {
  let cluster: Cluster;
  let node: TestServer;

  beforeAll(async () => {
    cluster = await startCluster();
    node = await startServer({ config: { databaseUrl: cluster.url, positionWaitMs: 500 }, rootToken: 'glpat-outage-root' });
  });

  afterAll(async () => {
    await node?.close().catch(() => undefined);
    cluster?.destroy();
  });

  it('answers 503 while the database is down, recovers alone, and loses nothing acknowledged', async () => {
    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    let phase: 'up' | 'down' | 'back' = 'up';
    const downStatuses: number[] = [];
    let stop = false;
    let counter = 0;
    const writer = async () => {
      while (!stop) {
        const path = `g-${++counter}`;
        let reply: Awaited<ReturnType<TestServer['request']>>;
        try {
          reply = await node.request('POST', '/api/v4/groups', { body: { name: path, path } });
        } catch (error) {
          unexpected.push(`request failed: ${String(error)}`);
          await sleep(50);
          continue;
        }
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (phase === 'down') downStatuses.push(reply.status);
        if (reply.status === 201) acknowledged.push(path);
        else if (reply.status === 503) {
          if (reply.headers.get('retry-after') !== '1' || reply.body?.message !== '503 Service Unavailable') unexpected.push(`503 without Retry-After or body: ${reply.text}`);
          await sleep(20);
        } else unexpected.push(`${reply.status} ${reply.text}`);
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    try {
      await sleep(800);
      const beforeOutage = acknowledged.length;
      expect(beforeOutage).toBeGreaterThan(0);
      cluster.stopImmediately();
      phase = 'down';
      // Let the writers meet the dead server for a while.
      for (let i = 0; i < 100 && downStatuses.filter((status) => status === 503).length < 10; i++) await sleep(50);
      // Reads of what is already known are served from the projections meanwhile.
      const read = await node.request('GET', `/api/v4/groups/${acknowledged[0]}`);
      expect(read.status).toBe(200);
      const ready = await fetch(`${node.url}/-/readiness`);
      expect(ready.status).toBe(503);
      cluster.start();
      phase = 'back';
      const recoveredFrom = acknowledged.length;
      const started = Date.now();
      while (acknowledged.length < recoveredFrom + 10 && Date.now() - started < 30_000) await sleep(50);
      expect(acknowledged.length).toBeGreaterThanOrEqual(recoveredFrom + 10);
      console.log(`outage: ${beforeOutage} acknowledged before, statuses ${JSON.stringify(Object.fromEntries(statuses))}, recovered in ${Date.now() - started} ms`);
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(unexpected).toEqual([]);
    expect(downStatuses.filter((status) => status === 503).length).toBeGreaterThan(0);
    expect(downStatuses.every((status) => status === 503 || status === 201)).toBe(true);
    // Every acknowledged group is in the log and on the node.
    const store = await openPostgresStore({ url: cluster.url, readonly: true, maxConnections: 1 });
    try {
      const events = await store.events.readAll(0, 1_000_000);
      expect(events.map((e) => e.globalPosition)).toEqual(events.map((_, i) => i + 1));
      const created = new Set(events.filter((e) => e.type === 'GroupCreated').map((e) => (e.data as { path: string }).path));
      expect(acknowledged.filter((path) => !created.has(path))).toEqual([]);
      const head = events.length;
      for (const path of acknowledged.slice(-20)) {
        const reply = await node.request('GET', `/api/v4/groups/${path}`, { headers: { 'X-Forgefold-Min-Position': String(head) } });
        expect(reply.status).toBe(200);
      }
    } finally {
      await store.close();
    }
  });
});
