/**
 * Deployments benchmark (issue 12): a page of 20 deployments of one environment (`GET /projects/:id/deployments?
 * environment=production&per_page=20`, ascending and descending, and a deep page) on a server whose environment
 * holds 10 deployments and on one whose environment holds BENCH_DEPLOYMENTS (100,000). Target: the big
 * environment's page takes < 2x as long (each environment keeps its deployments by ordinal: a page costs the page,
 * not a scan). The deployments are recorded through the application (`CreateDeployment` with the git facts the
 * route would read), the pages read through a real server with sequential, uncached requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startForgefold, type RunningForgefold } from '@forgefold/cli';
import { systemActor } from '@forgefold/core';
import { envInt, log, Report, pageLatency } from './lib.js';

const BIG = envInt('BENCH_DEPLOYMENTS', 100_000);
const MS = envInt('BENCH_MS', 2_000);
const TOKEN = 'glpat-bench-deployments-0000';
const PAGE_HEADERS = { 'PRIVATE-TOKEN': TOKEN };

const startInProcess = (dataDir: string) =>
  startForgefold({ port: 0, host: '127.0.0.1', dataDir, rootToken: TOKEN, synchronous: 'NORMAL', impersonationEnabled: true, snapshotEvery: 0, accessLog: false }, { say: () => undefined, log: () => undefined });

/** A project with a README commit and `count` deployments of its `main` to `production` (statuses mixed). */
const seed = async (server: RunningForgefold, count: number): Promise<number> => {
  const response = await fetch(`${server.url}/api/v4/projects`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Deployed', initialize_with_readme: true }),
  });
  const project = (await response.json()) as { id: number };
  const branch = (await (await fetch(`${server.url}/api/v4/projects/${project.id}/repository/branches/main`, { headers: { 'PRIVATE-TOKEN': TOKEN } })).json()) as { commit: { id: string } };
  const statuses = ['success', 'failed', 'running', 'canceled'] as const;
  for (let start = 0; start < count; start += 2_000) {
    const batch: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(count, start + 2_000); i++) {
      batch.push(
        server.app
          .execute(systemActor, {
            type: 'CreateDeployment',
            project_id: project.id,
            environment: 'production',
            sha: branch.commit.id,
            ref: 'main',
            tag: false,
            // Never an identical success twice in a row (that would return the last one instead of recording).
            status: statuses[i % statuses.length]!,
            sha_exists: true,
            ref_exists: true,
          })
          .then((result) => {
            if (result._tag === 'Left') throw new Error(JSON.stringify(result.left));
          }),
      );
    }
    await Promise.all(batch);
  }
  return project.id;
};

export default async function (): Promise<void> {
  const report = new Report('Deployments: a page of an environment, 10 vs many deployments');
  const latencies: Record<number, { asc: number; desc: number; deep: number }> = {};
  for (const size of [10, BIG]) {
    const dir = mkdtempSync(join(tmpdir(), `forgefold-bench-deployments-${size}-`));
    try {
      log(`recording ${size} deployments…`);
      const server = await startInProcess(dir);
      const projectId = await seed(server, size);
      const base = `${server.url}/api/v4/projects/${projectId}/deployments?environment=production&per_page=20`;
      // The deep page: the last full page of the big environment (page 1 of the small one).
      const deepPage = Math.max(1, Math.floor(size / 20));
      latencies[size] = { asc: await pageLatency(base, PAGE_HEADERS, MS), desc: await pageLatency(`${base}&sort=desc`, PAGE_HEADERS, MS), deep: await pageLatency(`${base}&page=${deepPage}`, PAGE_HEADERS, MS) };
      await server.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const small = latencies[10]!;
  const big = latencies[BIG]!;
  const target = { ratio: 0.5, text: '< 2x as long' };
  report.add('page of an environment, 10 deployments', small.asc, 'ms', { note: 'median of sequential uncached requests' });
  report.add(`page of an environment, ${BIG} deployments`, big.asc, 'ms', { baseline: 'page of an environment, 10 deployments', target });
  report.add('sort=desc page, 10 deployments', small.desc, 'ms');
  report.add(`sort=desc page, ${BIG} deployments`, big.desc, 'ms', { baseline: 'sort=desc page, 10 deployments', target });
  report.add('last page, 10 deployments', small.deep, 'ms');
  report.add(`last page (page ${Math.floor(BIG / 20)}), ${BIG} deployments`, big.deep, 'ms', { baseline: 'last page, 10 deployments', target });
  report.print();
}
