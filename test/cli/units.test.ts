/** In-process tests of the CLI's building blocks: progress bar, generic summary, envelope checks, data paths. */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyTable, initialState, tableSet } from '@forgefold/core';
import { createProgress, DATABASE_FILE, dataPaths, envelopeProblems, formatDuration, genericSummary, isTable, resolveDataDir, systemClock } from '@forgefold/cli';
import { BIN, seed, tempDir } from './fixtures.js';

const fakeStream = (isTTY: boolean) => {
  const writes: string[] = [];
  return { writes, stream: { isTTY, columns: 100, write: (chunk: string) => writes.push(chunk) } };
};

describe('progress bar', () => {
  it('writes nothing at all when the stream is not a TTY', () => {
    const { writes, stream } = fakeStream(false);
    const progress = createProgress('replay', stream);
    progress.update(10, 100);
    progress.update(100, 100);
    progress.finish();
    expect(writes).toEqual([]);
  });

  it('on a TTY draws done/total, rate and ETA on one line, throttled, and erases itself', () => {
    const { writes, stream } = fakeStream(true);
    let now = 0;
    const progress = createProgress('replay', stream, { now: () => now, intervalMs: 100 });
    now = 2_000;
    progress.update(5_000, 20_000);
    now = 2_050;
    progress.update(6_000, 20_000); // throttled
    now = 4_000;
    progress.update(10_000, 20_000);
    now = 4_001;
    progress.update(20_000, 20_000); // the last update always draws
    progress.finish();
    expect(writes).toHaveLength(4);
    expect(writes[0]).toMatch(/^\r\x1b\[2Kreplay \[#{10}-{30}\] {2}25\.0% 5,000\/20,000 events {2}2,500\/s {2}ETA 00:06$/);
    expect(writes[1]).toContain('50.0% 10,000/20,000 events  2,500/s  ETA 00:04');
    expect(writes[2]).toContain('100.0% 20,000/20,000');
    expect(writes[3]).toBe('\r\x1b[2K');
    // The visible text fits the terminal's width.
    for (const line of writes) expect(line.replace('\r\x1b[2K', '').length).toBeLessThan(100);
  });

  it('formats durations', () => {
    expect(formatDuration(0)).toBe('00:00');
    expect(formatDuration(61)).toBe('01:01');
    expect(formatDuration(3_725)).toBe('1:02:05');
    expect(formatDuration(Number.NaN)).toBe('--:--');
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)('is drawn by the real command when stderr is a terminal (via script(1))', async () => {
    const dir = tempDir();
    try {
      const data = join(dir.path, 'data');
      mkdirSync(data);
      await seed(data, { users: 3 });
      const run = spawnSync('script', ['-qfec', `${process.execPath} ${BIN} replay --data ${data}`, '/dev/null'], { encoding: 'utf8', timeout: 30_000 });
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/replay \[#+\] 100\.0% 5\/5 events/);
    } finally {
      dir.cleanup();
    }
  });
});

describe('generic summary', () => {
  it('counts the entries of every collection of every slice, and reports scalars', () => {
    const state = initialState() as unknown as Record<string, any>;
    tableSet(state.users.byId, 1, { id: 1, name: 'a' });
    tableSet(state.users.byId, 300, { id: 300, name: 'b' });
    tableSet(state.users.byUsername, 'a', 1);
    const summary = genericSummary({ ...state, log: [1, 2, 3], tags: new Set(['x']), byId: { 1: { id: 1, name: 'x' }, 2: { id: 2, name: 'y' } } });
    expect(summary).toMatchObject({ 'users.byId': 2, 'users.byUsername': 1, 'sequences.user': 0, log: 3, tags: 1, byId: 2 });
  });

  it('recognises kernel Tables by where their keys are sharded', () => {
    const table = emptyTable<number>();
    tableSet(table, 'alice', 1);
    tableSet(table, 7, 2);
    expect(isTable(table)).toBe(true);
    // A record keyed by id: its entities' field names do not shard to the id.
    expect(isTable({ 1: { id: 1, name: 'x' } })).toBe(false);
    expect(isTable({ 0: { id: 1 } })).toBe(false);
  });
});

describe('envelope checks', () => {
  const valid = {
    globalPosition: 1,
    streamId: 'user-1',
    streamVersion: 1,
    eventId: 'e1',
    type: 'UserCreated',
    schemaVersion: 1,
    recordedAt: '2026-01-01T00:00:00.000Z',
    metadata: { actorId: null, origin: 'system' },
    data: {},
  };
  it('accepts a complete envelope and names every problem of a broken one', () => {
    expect(envelopeProblems(valid)).toEqual([]);
    expect(envelopeProblems([])).toEqual(['not a JSON object']);
    const { data: _data, ...noData } = valid;
    expect(envelopeProblems({ ...noData, schemaVersion: 0, recordedAt: 'yesterday', metadata: { actorId: 'x', origin: 'api' } })).toEqual([
      'schemaVersion must be an integer >= 1',
      'recordedAt must be an ISO-8601 UTC time (YYYY-MM-DDTHH:MM:SS.sssZ)',
      'data is missing',
      'metadata.actorId must be an integer or null',
    ]);
  });
});

describe('data paths', () => {
  it('puts the database at <dir>/forgefold.db and resolves --data, then $FORGEFOLD_DATA, then ./data', () => {
    expect(DATABASE_FILE).toBe('forgefold.db');
    expect(dataPaths('/srv/ff')).toEqual({ dir: '/srv/ff', database: '/srv/ff/forgefold.db', repositories: '/srv/ff/repositories' });
    expect(dataPaths('rel', '/home/x').database).toBe('/home/x/rel/forgefold.db');
    expect(resolveDataDir('/a', { FORGEFOLD_DATA: '/b' })).toBe('/a');
    expect(resolveDataDir(undefined, { FORGEFOLD_DATA: '/b' })).toBe('/b');
    expect(resolveDataDir(undefined, {})).toBe('./data');
  });
});

describe('the system clock', () => {
  it("reads as Date's toISOString at every millisecond, whether it moves within a second, across seconds, or back", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -1_000, max: 1_000 }), fc.integer({ min: -5_000_000, max: 5_000_000 })), { minLength: 1, maxLength: 40 }), fc.integer({ min: -62_000_000_000_000, max: 250_000_000_000_000 }), (steps, start) => {
        let ms = start;
        const clock = systemClock(() => ms);
        for (const step of steps) {
          ms += step;
          expect(clock.now()).toBe(new Date(ms).toISOString());
        }
      }),
    );
  });
});
