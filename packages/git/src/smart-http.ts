/**
 * Git's smart HTTP protocol over `node:http`, by spawning `git upload-pack|receive-pack --stateless-rpc`:
 *
 * - `GET info/refs?service=…`: the ref advertisement. The `# service=` preamble only for protocol v0/v1 (a v2
 *   upload-pack answers with its capabilities; receive-pack has no v2 and always gets the preamble).
 * - `POST git-upload-pack|git-receive-pack`: the request body (gunzipped when `Content-Encoding: gzip`) streams
 *   into git and git's answer streams out; no pack is held in memory.
 * - The client's `Git-Protocol` header becomes `GIT_PROTOCOL`.
 *
 * A push is checked by the caller's `push.check` from the repository's `pre-receive` hook (through the push
 * gateway) before any ref moves; the repository's lock is taken there and held until receive-pack has exited,
 * then `push.received` gets the updates that did apply, and only then does the response end.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { GitCommandError } from './errors.js';
import { spawnGit } from './exec.js';
import type { RepoContext } from './context.js';
import type { PushGateway } from './push-gateway.js';
import { currentValues } from './refs.js';
import { isAncestor } from './reads.js';
import { updateRefs } from './writes.js';
import type { RefChange, Sha } from './types.js';
import { UploadPackCache } from './upload-pack-cache.js';
import { parseCloneRequest, streamClonePack, wantsAreTips, type PackObjectsSpares } from './clone-pack.js';
import { lsRefsAnswer, parseLsRefs, readAllRefFiles, readRefSnapshot, v0Advertisement, v0CapabilitiesOf, type V0Capabilities } from './ref-advertisement.js';

export type GitService = 'git-upload-pack' | 'git-receive-pack';

export type Authorization =
  | { readonly allowed: true }
  /** 401 answers with `WWW-Authenticate: Basic realm="GitLab"` so that git asks for credentials. */
  | { readonly allowed: false; readonly status: 401 | 403 | 404; readonly message?: string };

/** What a push policy may look at: the pushed objects are visible through receive-pack's quarantine. */
export interface PushContext {
  isAncestor(ancestor: Sha, descendant: Sha): Promise<boolean>;
}

export type PushVerdict = { readonly accepted: true } | { readonly accepted: false; readonly message: string };

export interface PushHandlers {
  /** Before any ref moves: accept or refuse the whole push. A refusal's message reaches the client as `remote: …`. */
  check(updates: readonly RefChange[], context: PushContext): Promise<PushVerdict>;
  /**
   * After receive-pack exited: the updates that applied, under the repository's lock (record the events here).
   * When it rejects, the updates are moved back and `onError` is told.
   */
  received(updates: readonly RefChange[]): Promise<void>;
}

export interface SmartHttpRequest {
  /** The path below `<project>.git/`: `info/refs`, `git-upload-pack` or `git-receive-pack`. */
  readonly path: string;
  readonly authorize: (service: GitService) => Promise<Authorization>;
  /** Required to accept pushes; without it receive-pack answers 403. */
  readonly push?: PushHandlers;
  /**
   * A token that changes whenever the repository's refs may have moved (the caller's record of them). With it,
   * upload-pack answers are reused while it holds (see upload-pack-cache.ts); without it, git answers every time.
   */
  readonly refsVersion?: string;
  /** Told about failures the client is not told of: a `received` that threw, a git that failed on its own. */
  readonly onError?: (error: unknown) => void;
}

/** How an upload-pack request was answered: kept bytes, the ref files, pack-objects alone (a plain clone), or upload-pack. */
export type UploadPackAnswer = 'cache' | 'refs' | 'pack-objects' | 'upload-pack';

export interface SmartHttpDeps {
  readonly ctx: RepoContext;
  readonly gateway: () => Promise<PushGateway>;
  readonly cache?: UploadPackCache;
  readonly onUploadPack?: (answer: UploadPackAnswer) => void;
  /** Idle pack-objects kept for the next plain clone (clone-pack.ts). */
  readonly spares?: PackObjectsSpares;
}

const noCache = {
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
  Pragma: 'no-cache',
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
} as const;

const pktLine = (text: string) => `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;

const plain = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...noCache, ...headers });
  res.end(body);
};

const deny = (res: ServerResponse, decision: Extract<Authorization, { allowed: false }>) => {
  if (decision.status === 401) plain(res, 401, decision.message ?? 'HTTP Basic: Access denied\n', { 'WWW-Authenticate': 'Basic realm="GitLab"' });
  else plain(res, decision.status, decision.message ?? (decision.status === 403 ? 'Forbidden\n' : 'Not Found\n'));
};

/** The client's protocol request, passed on only when it looks like one (`version=2`, `version=2:object-format=sha1`). */
const protocolOf = (req: IncomingMessage): string | null => {
  const header = req.headers['git-protocol'];
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^[A-Za-z0-9=:.,_-]{1,256}$/.test(value) ? value : null;
};

const wantsV2 = (protocol: string | null) => protocol !== null && protocol.split(':').includes('version=2');

/** What git reads: nothing, the request body as it comes, or a body whose start was already read. */
type Input = { readonly kind: 'none' } | { readonly kind: 'request' } | { readonly kind: 'read'; readonly prefix: Buffer; readonly rest: Readable | null };

/** The request body, gunzipped when `Content-Encoding: gzip`. */
const requestBody = (req: IncomingMessage): Readable => (req.headers['content-encoding'] === 'gzip' ? req.pipe(createGunzip()) : req);

type ReadBody = { prefix: Buffer; rest: Readable | null } | null;

/** Reads a stream up to `limit` bytes: the whole of it (`rest` null), or its first bytes and the paused rest; null when it fails. */
const readUpTo = (body: Readable, limit: number): Promise<ReadBody> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const done = (answer: ReadBody) => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      resolve(answer);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length > limit) {
        body.pause();
        body.on('error', () => undefined);
        done({ prefix: Buffer.concat(chunks), rest: body });
      }
    };
    const onEnd = () => done({ prefix: Buffer.concat(chunks), rest: null });
    const onError = () => done(null);
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
  });

/**
 * Reads the (gunzipped) request body up to `limit` bytes: the whole of it (`rest` null), or its first bytes and
 * the paused stream of the rest. Null when the body is broken (bad gzip, a client that went away). A gzip body
 * that fits is inflated at once (git compresses request bodies over 1 KiB, a clone's wants among them): a gunzip
 * stream goes through libuv's thread pool, which costs milliseconds per trip on a busy machine.
 */
const readBody = async (req: IncomingMessage, limit: number): Promise<ReadBody> => {
  if (req.headers['content-encoding'] !== 'gzip') return readUpTo(req, limit);
  const raw = await readUpTo(req, limit);
  if (raw === null) return null;
  if (raw.rest === null) {
    try {
      return { prefix: gunzipSync(raw.prefix, { maxOutputLength: limit }), rest: null };
    } catch {
      // Larger than the limit once inflated, or broken: the stream below tells which.
    }
  }
  const compressed = new PassThrough();
  compressed.write(raw.prefix);
  if (raw.rest === null) compressed.end();
  else raw.rest.pipe(compressed);
  return readUpTo(compressed.pipe(createGunzip()), limit);
};

/**
 * Runs one git service and streams it into the response. Headers go out with git's first bytes, so a git that
 * fails at once still gets a status of its own: 400 when it died (exit 128) on a request it could not read (a
 * bad pkt-line, a body cut short, an unknown command), else 500, told to `onError`. git's stderr never reaches
 * the client (it may name the repository's directory). `finish` runs after git exited and before the response
 * ends; `keep` gets the whole answer (preamble included) of a git that succeeded, while it is at most `keepMax`
 * bytes.
 */
const stream = (
  req: IncomingMessage,
  res: ServerResponse,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  contentType: string,
  options: {
    readonly input: Input;
    readonly preamble?: string;
    readonly finish?: (code: number | null) => Promise<void>;
    readonly keep?: { readonly max: number; readonly store: (body: Buffer) => void };
    readonly onError?: ((error: unknown) => void) | undefined;
  },
): Promise<void> =>
  new Promise((resolve) => {
    const child = spawnGit(null, args, env);
    let started = false;
    let stderr = '';
    let kept: Buffer[] | null = options.keep ? [] : null;
    let keptLength = 0;
    const keep = (chunk: Buffer) => {
      if (kept === null) return;
      keptLength += chunk.length;
      if (keptLength > options.keep!.max) kept = null;
      else kept.push(chunk);
    };
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(200, { 'Content-Type': contentType, ...noCache });
      if (options.preamble !== undefined) {
        res.write(options.preamble);
        keep(Buffer.from(options.preamble, 'utf8'));
      }
    };
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      start();
      keep(chunk);
      if (!res.write(chunk)) {
        child.stdout!.pause();
        res.once('drain', () => child.stdout!.resume());
      }
    });
    child.stdin!.on('error', () => undefined);
    const { input } = options;
    if (input.kind === 'request') {
      const body = requestBody(req);
      body.on('error', () => child.kill());
      body.pipe(child.stdin!);
    } else if (input.kind === 'read' && input.rest !== null) {
      child.stdin!.write(input.prefix);
      input.rest.on('error', () => child.kill());
      input.rest.pipe(child.stdin!);
    } else {
      child.stdin!.end(input.kind === 'read' ? input.prefix : undefined);
    }
    // A client that goes away takes its git with it.
    res.on('close', () => {
      if (!res.writableFinished) child.kill();
    });
    child.on('error', () => undefined);
    child.on('close', (code) => {
      void (async () => {
        try {
          await options.finish?.(code);
        } finally {
          if (!started && code === 128 && options.input.kind !== 'none') plain(res, 400, 'The request is not one git understands\n');
          else if (!started && code !== 0) {
            options.onError?.(new GitCommandError(args[0] ?? '', code, stderr));
            plain(res, 500, `git ${args[0]} failed\n`);
          } else {
            start();
            res.end();
            if (code === 0 && kept !== null) options.keep!.store(Buffer.concat(kept));
          }
          resolve();
        }
      })();
    });
  });

/** Request bodies read ahead to key the cache: enough for the wants of a clone with thousands of refs. */
const CACHEABLE_BODY_BYTES = 256 * 1024;

/** A `have` line (`0032have <sha>`): an incremental fetch, whose answer is not kept. */
const hasHaves = (body: Buffer) => body.includes('have ');

/**
 * upload-pack. Its answer is reused from the cache when the same request came under the same refs (see
 * upload-pack-cache.ts), and kept there otherwise. Ref advertisements (v2's `ls-refs`, v0's `--advertise-refs`)
 * are answered from the ref files (ref-advertisement.ts) and v2's capabilities from what git said the first
 * time, so that a clone starts one git (the fetch's) as a local clone does, rather than two or three. A plain
 * full clone's fetch runs pack-objects without upload-pack in front of it (clone-pack.ts).
 */
const uploadPack = async (
  deps: SmartHttpDeps,
  req: IncomingMessage,
  res: ServerResponse,
  refsVersion: string | undefined,
  protocol: string | null,
  protocolEnv: Readonly<Record<string, string>>,
  advertise: boolean,
  onError: ((error: unknown) => void) | undefined,
): Promise<void> => {
  const { ctx, cache } = deps;
  const { gitDir } = ctx;
  const v2 = wantsV2(protocol);
  const told = (answer: UploadPackAnswer) => deps.onUploadPack?.(answer);
  const contentType = advertise ? 'application/x-git-upload-pack-advertisement' : 'application/x-git-upload-pack-result';
  const send = (body: Buffer) => {
    res.writeHead(200, { 'Content-Type': contentType, ...noCache, 'Content-Length': String(body.length) });
    res.end(body);
  };
  // `--strict`: the directory itself must be the repository (upload-pack would also try `<dir>/.git`).
  const args = advertise ? ['upload-pack', '--stateless-rpc', '--advertise-refs', '--strict', gitDir] : ['upload-pack', '--stateless-rpc', '--strict', gitDir];
  const keyOf = (parts: readonly string[]) => (cache !== undefined && refsVersion !== undefined ? UploadPackCache.key(gitDir, refsVersion, parts) : null);
  const remember = (key: string | null, body: Buffer) => {
    if (key !== null) cache!.set(gitDir, refsVersion!, key, { contentType, body });
  };

  if (advertise && v2) {
    // Capabilities only, the same whatever the refs.
    const name = `v2-capabilities\0${protocol}`;
    const known = cache?.getFixed<Buffer>(gitDir, name);
    if (known !== undefined) {
      told('cache');
      return send(known);
    }
    told('upload-pack');
    return stream(req, res, args, protocolEnv, contentType, {
      input: { kind: 'none' },
      onError,
      ...(cache !== undefined ? { keep: { max: 64 * 1024, store: (body: Buffer) => cache.setFixed(gitDir, name, body) } } : {}),
    });
  }

  if (advertise) {
    const preamble = `${pktLine('# service=git-upload-pack\n')}0000`;
    const key = keyOf(['advertise', protocol ?? '']);
    const hit = key === null ? undefined : cache!.get(key);
    if (hit !== undefined) {
      told('cache');
      return send(hit.body);
    }
    const capabilitiesName = `v0-capabilities\0${protocol ?? ''}`;
    const capabilities = cache?.getFixed<V0Capabilities>(gitDir, capabilitiesName);
    const snapshot = capabilities === undefined ? null : await readRefSnapshot(ctx);
    const answer = snapshot === null ? null : v0Advertisement(snapshot, capabilities!);
    if (answer !== null) {
      const body = Buffer.concat([Buffer.from(preamble, 'utf8'), answer]);
      remember(key, body);
      told('refs');
      return send(body);
    }
    const store = (body: Buffer) => {
      const learnt = v0CapabilitiesOf(body.subarray(Buffer.byteLength(preamble)));
      if (learnt !== null) cache!.setFixed(gitDir, capabilitiesName, learnt);
      remember(key, body);
    };
    told('upload-pack');
    return stream(req, res, args, protocolEnv, contentType, { input: { kind: 'none' }, preamble, onError, ...(cache !== undefined ? { keep: { max: cache.entryMaxBytes, store } } : {}) });
  }

  const body = await readBody(req, CACHEABLE_BODY_BYTES);
  if (body === null) return plain(res, 400, 'The request body could not be read\n');
  const input: Input = { kind: 'read', ...body };
  const whole = body.rest === null;
  const key = whole && !hasHaves(body.prefix) ? keyOf(['upload-pack', protocol ?? '', createHash('sha256').update(body.prefix).digest('hex')]) : null;
  const hit = key === null ? undefined : cache!.get(key);
  if (hit !== undefined) {
    told('cache');
    return send(hit.body);
  }
  const lsRefs = whole && v2 ? parseLsRefs(body.prefix) : null;
  const snapshot = lsRefs === null ? null : await readRefSnapshot(ctx);
  if (lsRefs !== null && snapshot !== null) {
    const answer = lsRefsAnswer(snapshot, lsRefs);
    remember(key, answer);
    told('refs');
    return send(answer);
  }
  // A plain full clone: pack-objects without an upload-pack in front of it (clone-pack.ts).
  const clone = whole ? parseCloneRequest(body.prefix, v2) : null;
  const refs = clone === null ? null : readAllRefFiles(gitDir);
  if (clone !== null && refs !== null && wantsAreTips(clone, refs)) {
    told('pack-objects');
    return streamClonePack(ctx, res, clone, { 'Content-Type': contentType, ...noCache }, {
      ...(deps.spares !== undefined ? { spares: deps.spares } : {}),
      ...(key !== null ? { keep: { max: cache!.entryMaxBytes, store: (kept: Buffer) => remember(key, kept) } } : {}),
    });
  }
  told('upload-pack');
  return stream(req, res, args, protocolEnv, contentType, {
    input,
    onError,
    ...(key !== null ? { keep: { max: cache!.entryMaxBytes, store: (kept: Buffer) => remember(key, kept) } } : {}),
  });
};

export const serveSmartHttp = async (deps: SmartHttpDeps, req: IncomingMessage, res: ServerResponse, request: SmartHttpRequest): Promise<void> => {
  const { gitDir } = deps.ctx;
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = request.path.replace(/^\/+/, '');
  const protocol = protocolOf(req);
  const protocolEnv: Record<string, string> = protocol === null ? {} : { GIT_PROTOCOL: protocol };

  let service: GitService;
  let advertise: boolean;
  if (path === 'info/refs' && req.method === 'GET') {
    const asked = url.searchParams.get('service');
    if (asked !== 'git-upload-pack' && asked !== 'git-receive-pack') return plain(res, 403, 'Only smart HTTP (service=git-upload-pack|git-receive-pack) is served\n');
    service = asked;
    advertise = true;
  } else if ((path === 'git-upload-pack' || path === 'git-receive-pack') && req.method === 'POST') {
    service = path;
    advertise = false;
  } else {
    return plain(res, 404, 'Not Found\n');
  }

  const decision = await request.authorize(service);
  if (!decision.allowed) return deny(res, decision);
  const command = service === 'git-upload-pack' ? 'upload-pack' : 'receive-pack';
  if (command === 'receive-pack' && request.push === undefined) return plain(res, 403, 'Pushes are not accepted here\n');

  if (command === 'upload-pack') return uploadPack(deps, req, res, request.refsVersion, protocol, protocolEnv, advertise, request.onError);
  if (advertise) {
    return stream(req, res, ['receive-pack', '--stateless-rpc', '--advertise-refs', gitDir], protocolEnv, 'application/x-git-receive-pack-advertisement', {
      input: { kind: 'none' },
      preamble: `${pktLine('# service=git-receive-pack\n')}0000`,
      onError: request.onError,
    });
  }
  return receivePack(deps, req, res, request.push!, protocolEnv, request.onError);
};

const receivePack = async (
  deps: SmartHttpDeps,
  req: IncomingMessage,
  res: ServerResponse,
  push: PushHandlers,
  protocolEnv: Readonly<Record<string, string>>,
  onError: ((error: unknown) => void) | undefined,
): Promise<void> => {
  const { ctx } = deps;
  const gateway = await deps.gateway();
  let release: (() => void) | null = null;
  let accepted: readonly RefChange[] = [];
  // Set once receive-pack has exited: a check still running then must not keep the lock.
  let exited = false;
  const session = gateway.open({
    preReceive: async (updates, quarantine) => {
      // One writer per repository: the lock is held from the check until the refs are known after receive-pack.
      const free = await ctx.lock.acquire(ctx.gitDir);
      try {
        if (exited) {
          free();
          return { accepted: false, message: 'Forgefold: the push was interrupted' };
        }
        const context = { isAncestor: (ancestor: Sha, descendant: Sha) => isAncestor(ctx, ancestor, descendant, quarantine) };
        const verdict = await push.check(updates, context);
        if (verdict.accepted && !exited) {
          release = free;
          accepted = updates;
          return { accepted: true };
        }
        free();
        return { accepted: false, message: verdict.accepted ? 'Forgefold: the push was interrupted' : verdict.message };
      } catch (error) {
        free();
        throw error;
      }
    },
  });
  const finish = async () => {
    exited = true;
    session.close();
    const free = release;
    if (free === null) return;
    try {
      const values = await currentValues(ctx, accepted.map((update) => update.ref));
      const applied = accepted.filter((update) => (values.get(update.ref) ?? null) === update.newSha);
      if (applied.length > 0) {
        try {
          await push.received(applied);
        } catch (error) {
          // What was not recorded did not happen: the refs go back (compare-and-swap), so the log stays the truth.
          const undo = [...applied].reverse().map((update): RefChange => ({ ref: update.ref, oldSha: update.newSha, newSha: update.oldSha }));
          await updateRefs(ctx, undo).catch((undoError: unknown) => onError?.(undoError));
          throw error;
        }
      }
    } catch (error) {
      onError?.(error);
    } finally {
      free();
    }
  };
  await stream(req, res, ['receive-pack', '--stateless-rpc', ctx.gitDir], { ...protocolEnv, ...session.env }, 'application/x-git-receive-pack-result', {
    input: { kind: 'request' },
    finish,
    onError,
  });
};
