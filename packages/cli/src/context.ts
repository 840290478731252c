/** What a command runs with: standard streams, environment, the domain and a way to open the store. */
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { Domain } from './domain.js';
import type { ProgressStream } from './progress.js';
import type { StoreOpener } from './store.js';
import type { CommandSpec } from './args.js';

export interface CliContext {
  readonly stdout: Writable;
  /** Diagnostics and the progress bar (drawn only when this is a TTY). */
  readonly stderr: Writable & ProgressStream;
  readonly stdin: Readable;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly loadDomain: () => Promise<Domain>;
  readonly openStore: StoreOpener;
}

export interface Command {
  readonly spec: CommandSpec;
  /** Runs the command with its arguments (after the command name); resolves to the exit code. */
  run(argv: readonly string[], context: CliContext): Promise<number>;
}

/** Writes with backpressure: waits for 'drain' when the stream's buffer is full. */
export const writeChunk = async (stream: Writable, chunk: string): Promise<void> => {
  if (!stream.write(chunk)) await once(stream, 'drain');
};

export const printLine = (stream: Writable, text = ''): Promise<void> => writeChunk(stream, `${text}\n`);
