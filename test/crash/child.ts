/**
 * Crash-test child: `node --import tsx test/crash/child.ts <db file or postgres:// URL> <run-id> [synchronous]`.
 * Prints "loaded", waits for "go" on stdin, opens the store, prints "ready <head>", then executes
 * commands forever, several in flight, printing "ack <commandId>" once each is acknowledged.
 * Stdout is a pipe, which Node writes synchronously on Linux: an ack line is out before the next tick.
 */
import { openSqliteStore } from '@forgefold/sqlite-store';
import { openPostgresStore } from '@forgefold/postgres-store';
import { startTriple } from './triple.js';

const [path, runId, synchronous = 'FULL'] = process.argv.slice(2);
if (!path || !runId) throw new Error('usage: child.ts <db> <run-id> [synchronous]');

const main = async () => {
  const store = path.startsWith('postgres') ? await openPostgresStore({ url: path, maxConnections: 2 }) : openSqliteStore({ path, synchronous: synchronous as 'FULL' | 'NORMAL' });
  const app = await startTriple(store.events, store.snapshots, 150);
  process.stdout.write(`ready ${app.position}\n`);
  let counter = 0;
  const accounts = ['a', 'b', 'c', 'd', 'e'];
  const worker = async () => {
    for (;;) {
      const n = counter++;
      const commandId = `${runId}-${n}`;
      const result = await app.execute({ userId: 1, origin: 'api' }, { commandId, account: accounts[n % 5]!, other: accounts[(n * 3 + 1) % 5]! });
      if (result._tag !== 'Right') throw new Error('command rejected');
      process.stdout.write(`ack ${commandId}\n`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
};

process.stdout.write('loaded\n');
process.stdin.setEncoding('utf8');
process.stdin.once('data', () => {
  main().catch((error) => {
    process.stderr.write(`child failed: ${String(error?.stack ?? error)}\n`);
    process.exit(1);
  });
});
