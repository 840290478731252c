/**
 * Ref advertisements answered without a git process: protocol v2's `ls-refs` and protocol v0's
 * `upload-pack --advertise-refs`, byte for byte as git 2.39 writes them (tested against git).
 *
 * Why: a clone over HTTP costs git one `upload-pack` per request (two or three) against one for a local clone,
 * and each start costs 10–60 ms on a busy machine; the refs are files (loose refs, `packed-refs`, `HEAD`) that
 * can be read here, and tag objects are peeled through the long-lived batch reader.
 *
 * Anything this reader does not know for sure makes it answer null, and the caller asks git: a symbolic ref
 * under `refs/`, a detached or odd `HEAD`, a `packed-refs` without the `fully-peeled` trait, a ref file that is
 * not a plain sha, `packed-refs` rewritten while the loose refs were read, more loose refs than it reads cheaply.
 *
 * The files are read synchronously: they are small and in the page cache, and on a busy machine each trip
 * through libuv's thread pool costs milliseconds (a clone's ref listing took 10–200 ms as 30 awaited reads).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RepoContext } from './context.js';
import { parseTag } from './objects.js';
import { isValidFullRefName } from './ref-names.js';

/** Loose refs peeled through the batch reader at most (each is one object read). */
const MAX_LOOSE_REFS = 1_000;

/** What objects peel to (null: not a tag), by sha: objects never change, so this holds for good. Bounded. */
const peelCache = new Map<string, string | null>();
const PEEL_CACHE_MAX = 100_000;

const SHA = /^[0-9a-f]{40}$/;

/**
 * A commit written here peels to nothing: told by the object writer, so that the first ref advertisement after
 * an API commit does not ask the batch reader about the new branch tip (a trip to another process, milliseconds on
 * a busy machine).
 */
export const rememberCommit = (sha: string): void => {
  if (peelCache.has(sha)) return;
  if (peelCache.size >= PEEL_CACHE_MAX) peelCache.delete(peelCache.keys().next().value!);
  peelCache.set(sha, null);
};

export interface RefSnapshot {
  /** HEAD's target (`refs/heads/main`); HEAD is a symbolic ref here, else the snapshot is null. */
  readonly headTarget: string;
  /** Every ref under `refs/`, sorted by name as bytes (git's order), with its sha and, for a tag object, what it peels to. */
  readonly refs: readonly { readonly name: string; readonly sha: string; readonly peeled: string | null }[];
}

const packedStamp = (path: string): string => {
  try {
    const info = statSync(path);
    return `${info.ino}:${info.size}:${info.mtimeMs}`;
  } catch {
    return 'none';
  }
};

/** `packed-refs`: name → sha and peeled sha; null when the file lacks `fully-peeled` (peeled lines may be missing). */
const readPacked = (gitDir: string): Map<string, { sha: string; peeled: string | null }> | null => {
  let text: string;
  try {
    text = readFileSync(join(gitDir, 'packed-refs'), 'utf8');
  } catch {
    return new Map();
  }
  const packed = new Map<string, { sha: string; peeled: string | null }>();
  const lines = text.split('\n');
  if (lines[0]?.startsWith('#') && !/ fully-peeled( |$)/.test(lines[0])) return null;
  let last: { sha: string; peeled: string | null } | null = null;
  for (const line of lines) {
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('^')) {
      if (last === null || !SHA.test(line.slice(1))) return null;
      last.peeled = line.slice(1);
      continue;
    }
    const sha = line.slice(0, 40);
    const name = line.slice(41);
    if (!SHA.test(sha) || line[40] !== ' ' || !isValidFullRefName(name)) return null;
    last = { sha, peeled: null };
    packed.set(name, last);
  }
  return packed;
};

/** Loose refs under `refs/` (name → sha); null when one is not a plain sha (a symbolic ref). */
const readLoose = (gitDir: string): Map<string, string> | null => {
  const loose = new Map<string, string>();
  const walk = (relative: string): boolean => {
    let entries;
    try {
      entries = readdirSync(join(gitDir, relative), { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of entries) {
      const name = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!walk(name) || loose.size > MAX_LOOSE_REFS) return false;
        continue;
      }
      // Lock files (a ref being written) and other names git would never read as refs.
      if (!isValidFullRefName(name)) continue;
      let content: string;
      try {
        content = readFileSync(join(gitDir, name), 'utf8');
      } catch {
        // Gone between the listing and the read: packed, or deleted; the caller asks git.
        return false;
      }
      const sha = content.replace(/\n$/, '');
      if (!SHA.test(sha)) return false;
      loose.set(name, sha);
    }
    return true;
  };
  return walk('refs') ? loose : null;
};

/** What each object peels to when it is a tag (tags of tags followed down), else null; one batch of reads per level. */
const peelAll = async (ctx: RepoContext, shas: readonly string[]): Promise<Map<string, string | null> | null> => {
  const peeled = new Map<string, string | null>();
  const unknown = new Set<string>();
  for (const sha of shas) {
    const known = peelCache.get(sha);
    if (known === undefined) unknown.add(sha);
    else peeled.set(sha, known);
  }
  let chains = [...unknown].map((sha) => ({ start: sha, current: sha }));
  for (let depth = 0; chains.length > 0; depth++) {
    if (depth > 16) return null;
    const objects = await ctx.objects.readAll(ctx.gitDir, chains.map((chain) => chain.current));
    const next: { start: string; current: string }[] = [];
    for (const [index, object] of objects.entries()) {
      const chain = chains[index]!;
      if (object === null) return null;
      if (object.type !== 'tag') {
        const value = depth === 0 ? null : chain.current;
        peeled.set(chain.start, value);
        if (peelCache.size >= PEEL_CACHE_MAX) peelCache.delete(peelCache.keys().next().value!);
        peelCache.set(chain.start, value);
        continue;
      }
      const target = parseTag(object.data).object;
      if (!SHA.test(target)) return null;
      next.push({ start: chain.start, current: target });
    }
    chains = next;
  }
  return peeled;
};

/** `packed-refs` and the loose refs over it, read together; null when git must be asked (see the file's comment). */
const readRefFilesOf = (gitDir: string): { packed: NonNullable<ReturnType<typeof readPacked>>; loose: Map<string, string> } | null => {
  const packedPath = join(gitDir, 'packed-refs');
  const before = packedStamp(packedPath);
  const packed = readPacked(gitDir);
  const loose = packed === null ? null : readLoose(gitDir);
  if (packed === null || loose === null || loose.size > MAX_LOOSE_REFS) return null;
  // A `pack-refs` (receive-pack's auto gc) between the two reads could hide a ref from both.
  if (packedStamp(packedPath) !== before) return null;
  return { packed, loose };
};

/** Every ref under `refs/` and its sha as `for-each-ref` lists them, read from the files without a process; null: ask git. */
export const readAllRefFiles = (gitDir: string): Map<string, string> | null => {
  const files = readRefFilesOf(gitDir);
  if (files === null) return null;
  const all = new Map<string, string>();
  for (const [name, entry] of files.packed) all.set(name, entry.sha);
  for (const [name, sha] of files.loose) all.set(name, sha);
  return all;
};

/** The branch HEAD names, read from the HEAD file; null when HEAD is not a symbolic ref to a branch (ask git). */
export const readHeadBranch = (gitDir: string): string | null => {
  try {
    return /^ref: refs\/heads\/(\S+)\n?$/.exec(readFileSync(join(gitDir, 'HEAD'), 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
};

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The refs as git sees them now, or null (see the file's comment). */
export const readRefSnapshot = async (ctx: RepoContext): Promise<RefSnapshot | null> => {
  const { gitDir } = ctx;
  let headFile: string;
  try {
    headFile = readFileSync(join(gitDir, 'HEAD'), 'utf8');
  } catch {
    return null;
  }
  const head = /^ref: (refs\/\S+)\n?$/.exec(headFile);
  if (!head || !isValidFullRefName(head[1]!)) return null;
  const files = readRefFilesOf(gitDir);
  if (files === null) return null;
  const { packed, loose } = files;
  const looseShas = [...loose.values()];
  const peeledLoose = await peelAll(ctx, looseShas);
  if (peeledLoose === null) return null;
  const names = [...new Set([...packed.keys(), ...loose.keys()])].sort(byBytes);
  const refs = names.map((name) => {
    const sha = loose.get(name);
    if (sha !== undefined) return { name, sha, peeled: peeledLoose.get(sha) ?? null };
    const entry = packed.get(name)!;
    return { name, sha: entry.sha, peeled: entry.peeled };
  });
  return { headTarget: head[1]!, refs };
};

const pkt = (line: string): Buffer => {
  const body = Buffer.from(line, 'utf8');
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0'), 'ascii'), body]);
};

/** Splits a request body into pkt-lines (`0000` → 'flush', `0001` → 'delim'); null when malformed. */
export const pktLines = (body: Buffer): (string | 'flush' | 'delim')[] | null => {
  const lines: (string | 'flush' | 'delim')[] = [];
  let at = 0;
  while (at < body.length) {
    if (at + 4 > body.length) return null;
    const hex = body.toString('ascii', at, at + 4);
    if (!/^[0-9a-f]{4}$/.test(hex)) return null;
    const length = parseInt(hex, 16);
    if (length === 0) lines.push('flush');
    else if (length === 1) lines.push('delim');
    else if (length < 4 || at + length > body.length) return null;
    else lines.push(body.toString('utf8', at + 4, at + length).replace(/\n$/, ''));
    at += length < 4 ? 4 : length;
  }
  return lines;
};

/** The arguments of a v2 `command=ls-refs` request this module can answer, or null (another command, an unknown argument). */
export const parseLsRefs = (body: Buffer): { peel: boolean; symrefs: boolean; unborn: boolean; prefixes: string[] } | null => {
  const lines = pktLines(body);
  if (lines === null || lines[0] !== 'command=ls-refs') return null;
  const delim = lines.indexOf('delim');
  if (delim === -1 || lines.length !== lines.indexOf('flush') + 1 || lines.indexOf('flush') < delim) return null;
  for (const capability of lines.slice(1, delim)) {
    if (typeof capability !== 'string' || !/^(agent=\S*|object-format=sha1|session-id=\S*)$/.test(capability)) return null;
  }
  const request = { peel: false, symrefs: false, unborn: false, prefixes: [] as string[] };
  for (const argument of lines.slice(delim + 1, -1)) {
    if (argument === 'peel') request.peel = true;
    else if (argument === 'symrefs') request.symrefs = true;
    else if (argument === 'unborn') request.unborn = true;
    else if (typeof argument === 'string' && argument.startsWith('ref-prefix ')) request.prefixes.push(argument.slice('ref-prefix '.length));
    else return null;
  }
  return request;
};

/** git's `ls-refs` answer to `request` over `snapshot` (HEAD first, then the matching refs in order, then a flush). */
export const lsRefsAnswer = (snapshot: RefSnapshot, request: NonNullable<ReturnType<typeof parseLsRefs>>): Buffer => {
  const matches = (name: string) => request.prefixes.length === 0 || request.prefixes.some((prefix) => name.startsWith(prefix));
  const line = (name: string, sha: string | null, peeled: string | null, target: string | null) => {
    let text = sha === null ? `unborn ${name}` : `${sha} ${name}`;
    if (request.symrefs && target !== null) text += ` symref-target:${target}`;
    if (request.peel && sha !== null && peeled !== null) text += ` peeled:${peeled}`;
    return pkt(`${text}\n`);
  };
  const parts: Buffer[] = [];
  const head = snapshot.refs.find((ref) => ref.name === snapshot.headTarget);
  if (matches('HEAD') && (head !== undefined || (request.unborn && request.symrefs))) {
    parts.push(line('HEAD', head?.sha ?? null, head?.peeled ?? null, snapshot.headTarget));
  }
  for (const ref of snapshot.refs) if (matches(ref.name)) parts.push(line(ref.name, ref.sha, ref.peeled, null));
  parts.push(Buffer.from('0000', 'ascii'));
  return Buffer.concat(parts);
};

/**
 * The capabilities of a v0 advertisement as git wrote them, split around HEAD's `symref=` (the only part that
 * depends on the refs); null when git's first line has none (an unborn HEAD).
 */
export interface V0Capabilities {
  readonly before: string;
  readonly after: string;
}

/** Learns the capabilities from git's own v0 advertisement (without the `# service=` preamble). */
export const v0CapabilitiesOf = (advertisement: Buffer): V0Capabilities | null => {
  const lines = pktLines(advertisement);
  const first = lines?.[0];
  if (typeof first !== 'string' || first === 'flush' || first === 'delim') return null;
  const nul = first.indexOf('\0');
  if (nul === -1 || !/^[0-9a-f]{40} HEAD$/.test(first.slice(0, nul))) return null;
  const capabilities = first.slice(nul + 1);
  const symref = / symref=HEAD:\S+/.exec(capabilities);
  if (!symref) return null;
  return { before: capabilities.slice(0, symref.index), after: capabilities.slice(symref.index + symref[0].length) };
};

/** git's v0 `--advertise-refs` answer over `snapshot`; null when HEAD does not resolve (git's first line differs then). */
export const v0Advertisement = (snapshot: RefSnapshot, capabilities: V0Capabilities): Buffer | null => {
  const head = snapshot.refs.find((ref) => ref.name === snapshot.headTarget);
  if (head === undefined) return null;
  const parts: Buffer[] = [pkt(`${head.sha} HEAD\0${capabilities.before} symref=HEAD:${snapshot.headTarget}${capabilities.after}\n`)];
  if (head.peeled !== null) parts.push(pkt(`${head.peeled} HEAD^{}\n`));
  for (const ref of snapshot.refs) {
    parts.push(pkt(`${ref.sha} ${ref.name}\n`));
    if (ref.peeled !== null) parts.push(pkt(`${ref.peeled} ${ref.name}^{}\n`));
  }
  parts.push(Buffer.from('0000', 'ascii'));
  return Buffer.concat(parts);
};
