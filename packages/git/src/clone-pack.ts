/**
 * A plain full clone answered by `git pack-objects` directly, framed here as `git upload-pack --stateless-rpc`
 * frames it (git 2.39 `upload-pack.c`, `create_pack_file`): protocol v0 answers `NAK` and then the pack on side
 * band 1, protocol v2 answers the `packfile` section; progress (pack-objects' stderr) goes on band 2, a failure
 * on band 3, and a flush ends the answer.
 *
 * Why: upload-pack is one more process per clone on top of its pack-objects (a local `git clone --no-local` also
 * starts two, but its client starts no `git remote-http`), and each start costs 10–60 ms on a busy machine.
 *
 * Only the plainest request is answered here: wants that are all current ref tips, no `have`, no shallow or
 * deepen, no filter, no `want-ref`, no capability or argument this module does not know, and `done`. Anything
 * else answers null from the parser and upload-pack serves it, so its negotiation stays git's.
 */
import type { ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import type { RepoContext } from './context.js';
import { spawnGit } from './exec.js';
import { ProcessPool, type PooledProcess } from './process-pool.js';
import { pktLines } from './ref-advertisement.js';

export interface CloneRequest {
  readonly v2: boolean;
  readonly wants: readonly string[];
  readonly thinPack: boolean;
  readonly ofsDelta: boolean;
  readonly includeTag: boolean;
  readonly noProgress: boolean;
  /** Largest pkt-line (length included): 65520 with `side-band-64k` (and always in v2), 1000 with `side-band`. */
  readonly maxPacket: number;
}

const SHA = /^[0-9a-f]{40}$/;

/** Capabilities a v0 client may name on its first want without changing what a clone's answer is. */
const V0_CAPABILITY = /^(multi_ack|multi_ack_detailed|no-done|side-band|side-band-64k|thin-pack|no-progress|include-tag|ofs-delta|deepen-since|deepen-not|deepen-relative|agent=\S*|session-id=\S*|object-format=sha1)$/;
/** v2 request capabilities (before the delimiter) that change nothing here; `server-option` is left to git. */
const V2_CAPABILITY = /^(agent=\S*|session-id=\S*|object-format=sha1)$/;

/**
 * The request of a plain full clone (see the file's comment), or null: upload-pack answers anything else.
 * v0: `want <sha> <capabilities>`, more `want`s, a flush, `done`. v2: `command=fetch`, capabilities, a
 * delimiter, arguments (`want`, `thin-pack`, `ofs-delta`, `include-tag`, `no-progress`, `done`), a flush.
 */
export const parseCloneRequest = (body: Buffer, v2: boolean): CloneRequest | null => {
  const lines = pktLines(body);
  if (lines === null) return null;
  const wants: string[] = [];
  const flags = new Set<string>();
  if (v2) {
    const delim = lines.indexOf('delim');
    if (lines[0] !== 'command=fetch' || delim === -1 || lines.indexOf('flush') !== lines.length - 1) return null;
    for (const capability of lines.slice(1, delim)) if (typeof capability !== 'string' || !V2_CAPABILITY.test(capability)) return null;
    const args = lines.slice(delim + 1, -1);
    if (args.at(-1) !== 'done') return null;
    for (const arg of args.slice(0, -1)) {
      if (typeof arg !== 'string') return null;
      if (arg.startsWith('want ')) {
        const sha = arg.slice(5);
        if (!SHA.test(sha)) return null;
        wants.push(sha);
      } else if (arg === 'thin-pack' || arg === 'ofs-delta' || arg === 'include-tag' || arg === 'no-progress') flags.add(arg);
      else return null;
    }
  } else {
    // Wants, one flush, then `done` last: no have, no shallow, no deepen, no filter.
    if (lines.length < 3 || lines.at(-1) !== 'done' || lines.at(-2) !== 'flush') return null;
    for (const [index, line] of lines.slice(0, -2).entries()) {
      if (typeof line !== 'string' || !line.startsWith('want ')) return null;
      const [, sha, ...capabilities] = line.split(' ');
      if (sha === undefined || !SHA.test(sha) || (index > 0 && capabilities.length > 0)) return null;
      for (const capability of capabilities) {
        if (!V0_CAPABILITY.test(capability)) return null;
        flags.add(capability);
      }
      wants.push(sha);
    }
    // Without a side band upload-pack sends the bare pack and no progress: rare enough to leave to it.
    if (!flags.has('side-band') && !flags.has('side-band-64k')) return null;
  }
  if (wants.length === 0) return null;
  return {
    v2,
    wants,
    thinPack: flags.has('thin-pack'),
    ofsDelta: flags.has('ofs-delta'),
    includeTag: flags.has('include-tag'),
    noProgress: flags.has('no-progress'),
    maxPacket: v2 || flags.has('side-band-64k') ? 65520 : 1000,
  };
};

/** Whether every want is a ref's value (`refs`: every ref's sha): what upload-pack v0 accepts without `allow*SHA1InWant`. */
export const wantsAreTips = (request: CloneRequest, refs: ReadonlyMap<string, string>): boolean => {
  const tips = new Set(refs.values());
  return request.wants.every((want) => tips.has(want));
};

const pktHeader = (length: number) => Buffer.from(length.toString(16).padStart(4, '0'), 'ascii');

/** `data` on side band `band`, in packets of at most `maxPacket` bytes. */
const sideBand = (band: 1 | 2 | 3, data: Buffer, maxPacket: number): Buffer[] => {
  const parts: Buffer[] = [];
  const room = maxPacket - 5;
  for (let at = 0; at < data.length; at += room) {
    const piece = data.subarray(at, Math.min(data.length, at + room));
    parts.push(pktHeader(piece.length + 5), Buffer.of(band), piece);
  }
  return parts;
};

/** upload-pack's message on band 3 when pack-objects fails. */
const ABORT = 'aborting due to possible repository corruption on the remote side.';
/** upload-pack's default `uploadpack.keepAlive`: an empty band-1 packet after this long without output. */
const KEEPALIVE_MS = 5_000;

/** upload-pack's pack-objects arguments for a request's capabilities, in its order. */
const packObjectsArgs = (request: CloneRequest): string[] => {
  const args = ['pack-objects', '--revs'];
  if (request.thinPack) args.push('--thin');
  args.push('--stdout');
  if (!request.noProgress) args.push('--progress');
  if (request.ofsDelta) args.push('--delta-base-offset');
  if (request.includeTag) args.push('--include-tag');
  return args;
};

/** An idle pack-objects waiting for its revisions on stdin. */
class Spare implements PooledProcess {
  readonly busy = false;
  readonly lastUsed = Date.now();
  closed = false;

  constructor(
    readonly child: ChildProcess,
    readonly args: string,
    onExit: () => void,
  ) {
    child.on('error', () => undefined);
    child.stdin!.on('error', () => undefined);
    child.on('exit', () => {
      this.closed = true;
      onExit();
    });
  }

  close(): void {
    this.closed = true;
    this.child.kill();
  }
}

/**
 * One idle `pack-objects` per recently cloned repository, started once a clone's answer has gone out, so that the
 * next clone does not wait for a process to start (on a busy machine the start alone blocks the event loop for
 * 10–30 ms and git's own start-up adds as much). pack-objects reads nothing of the repository's refs before its
 * stdin: the revisions come with the request, objects are looked up then (loose objects as they are, packs added
 * since it started are found by git's re-scan on a miss), so a spare answers as a fresh one would. At most `max`
 * are kept, each for `idleMs`; a spare whose arguments differ from the request's is closed and a fresh one started.
 */
export class PackObjectsSpares extends ProcessPool<Spare> {
  private nextArgs: readonly string[] = [];

  constructor(max = 16, idleMs = 30_000) {
    super((gitDir, onExit) => new Spare(spawnGit(gitDir, this.nextArgs), this.nextArgs.join(' '), onExit), max, idleMs);
  }

  /** The spare for these arguments, taken out of the pool, or null (none, or one for other arguments). */
  claim(gitDir: string, args: readonly string[]): ChildProcess | null {
    const spare = this.take(gitDir);
    if (spare === undefined) return null;
    if (spare.args === args.join(' ')) return spare.child;
    spare.close();
    return null;
  }

  /** Starts a spare for the repository unless it has one. */
  prepare(gitDir: string, args: readonly string[]): void {
    if (this.has(gitDir)) return;
    this.nextArgs = args;
    this.processOf(gitDir);
  }
}

/**
 * Runs `pack-objects` for `request` (a spare one when `spares` has it) and streams its answer; a failure reaches
 * the client on band 3, after what pack-objects said on band 2. `keep` gets the whole answer of a run that
 * succeeded, while it is at most `keep.max` bytes.
 */
export const streamClonePack = (
  ctx: RepoContext,
  res: ServerResponse,
  request: CloneRequest,
  headers: Readonly<Record<string, string>>,
  options: { readonly spares?: PackObjectsSpares; readonly keep?: { readonly max: number; readonly store: (body: Buffer) => void } } = {},
): Promise<void> =>
  new Promise((resolve) => {
    const { spares, keep } = options;
    const args = packObjectsArgs(request);
    let kept: Buffer[] | null = keep ? [] : null;
    let keptLength = 0;
    let keepalive: NodeJS.Timeout | null = null;
    // One write per piece: each is one chunk of the chunked response.
    const send = (parts: Buffer[]) => {
      const piece = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      if (kept !== null) {
        keptLength += piece.length;
        if (keptLength > keep!.max) kept = null;
        else kept.push(piece);
      }
      return res.write(piece);
    };
    const armKeepalive = () => {
      if (keepalive !== null) clearTimeout(keepalive);
      keepalive = setTimeout(() => {
        send([Buffer.from('0005\x01', 'latin1')]);
        armKeepalive();
      }, KEEPALIVE_MS);
    };
    // The section header goes out before pack-objects is asked (upload-pack v0 sends its NAK then too): the client
    // starts its index-pack on it meanwhile.
    res.writeHead(200, headers);
    send([Buffer.from(request.v2 ? '000dpackfile\n' : '0008NAK\n', 'ascii')]);
    armKeepalive();
    let current: ChildProcess | null = null;
    // A client that goes away takes its pack-objects with it.
    res.on('close', () => {
      if (!res.writableFinished) current?.kill();
    });
    const run = (child: ChildProcess, spare: boolean) => {
      current = child;
      let answered = false;
      const forward = (band: 1 | 2, chunk: Buffer, source: NodeJS.ReadableStream) => {
        answered = true;
        armKeepalive();
        if (!send(sideBand(band, chunk, request.maxPacket))) {
          source.pause();
          res.once('drain', () => source.resume());
        }
      };
      child.stdout!.on('data', (chunk: Buffer) => forward(1, chunk, child.stdout!));
      child.stderr!.on('data', (chunk: Buffer) => forward(2, chunk, child.stderr!));
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(`${request.wants.join('\n')}\n--not\n\n`);
      let finished = false;
      const finish = (code: number | null) => {
        if (finished) return;
        finished = true;
        // A spare that died before it said anything (killed while idle): a fresh one is asked instead.
        if (spare && code !== 0 && !answered && !res.destroyed) return run(spawnGit(ctx.gitDir, args), false);
        if (keepalive !== null) clearTimeout(keepalive);
        if (code === 0) {
          send([Buffer.from('0000', 'ascii')]);
          res.end();
          if (kept !== null) keep!.store(Buffer.concat(kept));
          // The next clone's pack-objects, started once this answer is out.
          if (spares !== undefined) setImmediate(() => spares.prepare(ctx.gitDir, args));
        } else {
          // As upload-pack: the client is told on band 3 and gets no flush, so it cannot take the pack for whole.
          res.end(Buffer.concat(sideBand(3, Buffer.from(ABORT, 'utf8'), request.maxPacket)));
        }
        resolve();
      };
      child.on('error', () => finish(null));
      child.on('close', finish);
    };
    const spare = spares?.claim(ctx.gitDir, args) ?? null;
    if (spare !== null) run(spare, true);
    // Node writes the response on the next tick (the socket is corked until then) and a spawn blocks the event
    // loop until the child has started: the section header goes out first.
    else {
      setImmediate(() => {
        if (!res.destroyed) return run(spawnGit(ctx.gitDir, args), false);
        // The client went away meanwhile.
        if (keepalive !== null) clearTimeout(keepalive);
        resolve();
      });
    }
  });
