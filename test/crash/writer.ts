/**
 * Two-process writer: `node --import tsx test/crash/writer.ts <db> <writer-id> <commands>`. Executes the
 * commands (8 in flight) through an Application on the shared file, prints "ack <id>" for each and
 * "done <stale commits> <stale rejections> <position>" at the end. Another process writes to the same file meanwhile.
 * The second half of the commands waits until the other writer's first event is in the file: on a loaded machine one
 * process could otherwise finish before the other starts, and the writes would not interleave. Having read that event
 * past its Application, the writer's next commit is also always a stale one.
 */
import { StaleWriter } from '@forgefold/core';
import { openSqliteStore } from '@forgefold/sqlite-store';
import { startTriple } from './triple.js';

const [path, writerId, count] = process.argv.slice(2);
if (!path || !writerId || !count) throw new Error('usage: writer.ts <db> <writer-id> <commands>');

const store = openSqliteStore({ path, synchronous: 'NORMAL' });
// Count the stale commits the application catches up from (the store refuses them with StaleWriter).
let staleCommits = 0;
const commit = store.events.commit.bind(store.events);
store.events.commit = (writes, options) =>
  commit(writes, options).catch((error: unknown) => {
    if (error instanceof StaleWriter) staleCommits++;
    throw error;
  });
// The application writes through `stageCommit` (the flush of one batch overlapping the next), which rejects with it.
const stageCommit = store.events.stageCommit.bind(store.events);
store.events.stageCommit = (writes, options) =>
  stageCommit(writes, options)?.catch((error: unknown) => {
    if (error instanceof StaleWriter) staleCommits++;
    throw error;
  }) ?? null;
const app = await startTriple(store.events, store.snapshots, 100);
// Both writers start together: wait for the parent's "go".
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
let next = 0;
let staleRejections = 0;
const half = Math.floor(Number(count) / 2);
const otherWrote = (async () => {
  for (;;) {
    const events = await store.events.readAll(0, Number.MAX_SAFE_INTEGER);
    if (events.some((event) => !(event.data as { commandId: string }).commandId.startsWith(`${writerId}-`))) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
})();
const worker = async () => {
  while (next < Number(count)) {
    const n = next++;
    if (n >= half) await otherWrote;
    const commandId = `${writerId}-${n}`;
    for (;;) {
      try {
        const result = await app.execute({ userId: 1, origin: 'api' }, { commandId, account: `${writerId}${n % 3}`, other: `shared${n % 2}` });
        if (result._tag !== 'Right') throw new Error('rejected');
        break;
      } catch (error) {
        // The application retried its catch-up ten times and the other writer won each time: nothing was
        // written, so the command can simply be issued again.
        if (!(error instanceof StaleWriter)) throw error;
        staleRejections++;
      }
    }
    process.stdout.write(`ack ${commandId}\n`);
  }
};
await Promise.all(Array.from({ length: 8 }, worker));
process.stdin.destroy();
await app.catchUp();
process.stdout.write(`done ${staleCommits} ${staleRejections} ${app.position}\n`);
await store.close();
