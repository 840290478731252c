/**
 * Where `pre-receive` hooks ask the server. One Unix socket per server process, in a private temporary directory;
 * each push gets a random token that reaches its hook only through the environment of the `receive-pack` the
 * server spawned. A hook sends one JSON line (token, updates, the quarantine environment) and reads one back.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSha, shaOrNull } from './objects.js';
import type { RefChange } from './types.js';

export interface HookVerdict {
  readonly accepted: boolean;
  readonly message?: string;
}

export interface PushSession {
  /** The ref updates of a push, before any moves; `quarantine` is the environment that sees the pushed objects. */
  preReceive(updates: readonly RefChange[], quarantine: Readonly<Record<string, string>>): Promise<HookVerdict>;
}

interface HookRequest {
  readonly token?: unknown;
  readonly updates?: unknown;
  readonly quarantine?: unknown;
}

const parseUpdates = (value: unknown): RefChange[] | null => {
  if (!Array.isArray(value)) return null;
  const updates: RefChange[] = [];
  for (const item of value as unknown[]) {
    const { oldSha, newSha, ref } = (item ?? {}) as Record<string, unknown>;
    if (typeof oldSha !== 'string' || typeof newSha !== 'string' || typeof ref !== 'string' || !isSha(oldSha) || !isSha(newSha)) return null;
    updates.push({ ref, oldSha: shaOrNull(oldSha), newSha: shaOrNull(newSha) });
  }
  return updates;
};

const quarantineKeys = ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH'] as const;

const parseQuarantine = (value: unknown): Record<string, string> => {
  const env: Record<string, string> = {};
  const source = (value ?? {}) as Record<string, unknown>;
  for (const key of quarantineKeys) {
    const entry = source[key];
    if (typeof entry === 'string' && entry !== '') env[key] = entry;
  }
  return env;
};

export class PushGateway {
  private readonly sessions = new Map<string, PushSession>();

  private constructor(
    private readonly server: Server,
    private readonly directory: string,
    readonly socketPath: string,
  ) {}

  static async start(): Promise<PushGateway> {
    // A short path: Unix socket paths are limited to ~107 bytes. mkdtemp makes the directory 0700.
    const directory = await mkdtemp(join(tmpdir(), 'ff-push-'));
    const socketPath = join(directory, 'hooks.sock');
    let gateway: PushGateway | null = null;
    const server = createServer((socket) => gateway?.serve(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    server.unref();
    gateway = new PushGateway(server, directory, socketPath);
    return gateway;
  }

  /** Registers a push; its `env` goes into receive-pack's environment, `close` forgets it. */
  open(session: PushSession): { readonly env: Readonly<Record<string, string>>; readonly close: () => void } {
    const token = randomBytes(24).toString('hex');
    this.sessions.set(token, session);
    return {
      env: { FORGEFOLD_HOOK_SOCKET: this.socketPath, FORGEFOLD_HOOK_TOKEN: token, FORGEFOLD_NODE: process.execPath },
      close: () => this.sessions.delete(token),
    };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.directory, { recursive: true, force: true });
  }

  private serve(socket: Socket): void {
    let input = '';
    let answered = false;
    const answer = (verdict: HookVerdict) => {
      if (answered) return;
      answered = true;
      socket.end(`${JSON.stringify(verdict)}\n`);
    };
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      input += chunk;
      const newline = input.indexOf('\n');
      if (newline === -1 || answered) return;
      let request: HookRequest;
      try {
        request = JSON.parse(input.slice(0, newline)) as HookRequest;
      } catch {
        return answer({ accepted: false, message: 'Forgefold: malformed hook request' });
      }
      const session = typeof request.token === 'string' ? this.sessions.get(request.token) : undefined;
      const updates = parseUpdates(request.updates);
      if (!session || !updates) return answer({ accepted: false, message: 'Forgefold: this push is not known to the server' });
      session.preReceive(updates, parseQuarantine(request.quarantine)).then(answer, (error: unknown) =>
        answer({ accepted: false, message: `Forgefold: the push could not be checked (${error instanceof Error ? error.message : String(error)})` }),
      );
    });
  }
}
