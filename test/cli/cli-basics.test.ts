/** The forgefold command as a child process: help, flag errors, data directory resolution, replay. */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, cliInProcess, seed, START, STEP_MS, tempDir, type Step } from './fixtures.js';

let root: ReturnType<typeof tempDir>;
let data: string;
let steps: Step[];

beforeAll(async () => {
  root = tempDir();
  data = join(root.path, 'data');
  mkdirSync(data);
  steps = await seed(data, { users: 12 });
});

afterAll(() => root.cleanup());

describe('forgefold help and errors', () => {
  it('lists the commands and the common flags', () => {
    const run = cli(['--help']);
    expect(run.status).toBe(0);
    for (const command of ['serve', 'replay', 'export', 'import', 'verify', 'snapshot']) expect(run.stdout).toContain(`  ${command}`);
    expect(run.stdout).toContain('--data DIR');
    expect(run.stdout).toContain('FORGEFOLD_DATA');
    expect(run.stderr).toBe('');
  });

  it('prints per-command help with flags and exit codes, via --help or `help <command>`', async () => {
    const verify = await cliInProcess(['verify', '--help']);
    expect(verify.status).toBe(0);
    expect(verify.stdout).toMatch(/Usage: forgefold verify/);
    expect(verify.stdout).toMatch(/Exit codes:\n\s+0 {2}the snapshot matches[^\n]*\n\s+1 {2}mismatch[^\n]*\n\s+2 {2}there is no snapshot/);
    const replay = await cliInProcess(['help', 'replay']);
    expect(replay.status).toBe(0);
    expect(replay.stdout).toContain('--until ISO-TIME');
    expect(replay.stdout).toContain('--position N');
    expect((await cliInProcess(['import', '-h'])).stdout).toContain('--append');
  });

  it.each([
    [['replay', '--bogus'], /unknown option --bogus/],
    [['replay', '--position', 'abc'], /--position must be a non-negative integer, got 'abc'/],
    [['replay', '--until', 'yesterday'], /--until must be an ISO-8601 time/],
    [['replay', '--until', '2026-03-01', '--position', '3'], /--until and --position cannot be combined/],
    [['replay', '--position'], /option --position needs a value/],
    [['export', 'stray'], /unexpected argument 'stray'/],
    [['verify', '--json=yes'], /--json does not take a value/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('rejects %j with exit 64 and a clear message', async (args, message) => {
    const run = await cliInProcess(args);
    expect(run.status).toBe(64);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('exits 64 with the command list when no command is given; a bad flag exits 64 from the real process too', async () => {
    const [none, bad] = await Promise.all([cliAsync([]), cliAsync(['export', '--out'])]);
    expect(none.status).toBe(64);
    expect(none.stderr).toContain('Usage: forgefold <command>');
    expect(bad.status).toBe(64);
    expect(bad.stderr).toBe("forgefold export: option --out needs a value\nRun 'forgefold export --help' for usage.\n");
  });

  it('fails clearly (exit 1) when the data directory has no database, and never creates one', async () => {
    const empty = join(root.path, 'nothing-here');
    for (const command of ['replay', 'export', 'verify', 'snapshot']) {
      const run = await cliInProcess([command, '--data', empty]);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`no event database at ${join(empty, 'forgefold.db')}`);
    }
    expect(existsSync(empty)).toBe(false);
  });

  it('finds the data directory through --data, $FORGEFOLD_DATA, then ./data', async () => {
    const head = steps[steps.length - 1]!.position;
    const runs = await Promise.all([
      cliAsync(['replay', '--json', '--data', data], { env: { FORGEFOLD_DATA: join(root.path, 'elsewhere') } }),
      cliAsync(['replay', '--json'], { env: { FORGEFOLD_DATA: data } }),
      cliAsync(['replay', '--json'], { cwd: root.path }),
    ]);
    for (const run of runs) {
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout).position).toBe(head);
    }
  });
});

describe('forgefold replay', () => {
  it('summarizes the whole log: position, last event time, counts per slice, state hash', () => {
    const run = cli(['replay', '--data', data]);
    expect(run.status).toBe(0);
    const last = steps[steps.length - 1]!;
    expect(run.stdout).toContain(`position      ${last.position} of ${last.position} (head)`);
    expect(run.stdout).toContain(`last event    ${last.at}`);
    expect(run.stdout).toMatch(/state hash {4}[0-9a-f]{64}/);
    expect(run.stdout).toMatch(/users\s+12\n/);
    expect(run.stdout).toMatch(/groups\s+1\n/);
    // Not a TTY: no progress bar, nothing at all on stderr.
    expect(run.stderr).toBe('');
  });

  it('--position N folds the events up to N', async () => {
    const step = steps[4]!;
    const [run, beyondRun, zeroRun] = await Promise.all([
      cliAsync(['replay', '--data', data, '--position', String(step.position), '--json']),
      cliAsync(['replay', '--data', data, '--position', '100000', '--json']),
      cliAsync(['replay', '--data', data, '--position', '0', '--json']),
    ]);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ position: step.position, head: steps[steps.length - 1]!.position, lastEventAt: step.at, requestedPosition: step.position });
    expect(summary.slices).toMatchObject({ users: step.users, groups: 0 });
    expect(summary.stateHash).toMatch(/^[0-9a-f]{64}$/);
    // Beyond the head: the whole log.
    const beyond = JSON.parse(beyondRun.stdout);
    expect(beyond.position).toBe(steps[steps.length - 1]!.position);
    // Position 0: the initial state.
    const zero = JSON.parse(zeroRun.stdout);
    expect(zero).toMatchObject({ position: 0, lastEventAt: null, slices: { users: 0 } });
  });

  it('--until ISO-TIME folds the events recorded at or before that time; the same point by position has the same state hash', async () => {
    const step = steps[6]!;
    // Half a step later: still only the events of the first seven commands.
    const until = new Date(Date.parse(step.at) + STEP_MS / 2).toISOString();
    const [run, exact, beforeRun, byPositionRun] = await Promise.all([
      cliAsync(['replay', '--data', data, '--until', until, '--json']),
      cliAsync(['replay', '--data', data, '--until', step.at, '--json']),
      cliAsync(['replay', '--data', data, '--until', '2020-01-01', '--json']),
      cliAsync(['replay', '--data', data, '--position', String(step.position), '--json']),
    ]);
    expect(run.status).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ position: step.position, lastEventAt: step.at, until, slices: { users: step.users } });
    // Exactly at the time: inclusive.
    expect(JSON.parse(exact.stdout).position).toBe(step.position);
    expect(JSON.parse(byPositionRun.stdout).stateHash).toBe(summary.stateHash);
    // Before the first event: nothing.
    const before = JSON.parse(beforeRun.stdout);
    expect(before).toMatchObject({ position: 0, slices: { users: 0 } });
    expect(Date.parse(START)).toBeGreaterThan(Date.parse('2020-01-01'));
  });
});
