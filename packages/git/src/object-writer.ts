/**
 * Writing blobs and trees without a git process: a loose object is `zlib(<type> <size>\0<content>)` at
 * `objects/<2 hex>/<38 hex>`, named by the SHA-1 of what is compressed, which is what `hash-object -w` and
 * `write-tree` do. A commit through the API used to start seven git processes (read-tree, ls-files,
 * hash-object, update-index, write-tree, commit-tree, update-ref), each 10–20 ms on a busy machine, one after
 * the other under the repository's lock; now the trees along the changed paths are computed here from one
 * `ls-tree`, and only listing, committing and the ref move are git's.
 *
 * As git, loose objects are not fsynced (`core.fsync` leaves them out by default) and are written read-only
 * through a temporary file and a rename, so a reader never sees half an object.
 */
import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { asSha } from './objects.js';
import { rememberCommit } from './ref-advertisement.js';
import type { Sha } from './types.js';

type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** The object's sha and its compressed loose form. */
const looseObject = (type: ObjectType, content: Buffer): { sha: Sha; data: Buffer } => {
  const raw = Buffer.concat([Buffer.from(`${type} ${content.length}\0`, 'utf8'), content]);
  return { sha: asSha(createHash('sha1').update(raw).digest('hex')), data: deflateSync(raw) };
};

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Writes an object into the repository (nothing when it is there as a loose object already); answers its sha. */
export const writeObject = async (gitDir: string, type: ObjectType, content: Buffer): Promise<Sha> => {
  const { sha, data } = looseObject(type, content);
  if (type === 'commit') rememberCommit(sha);
  const dir = join(gitDir, 'objects', sha.slice(0, 2));
  const path = join(dir, sha.slice(2));
  if (await exists(path)) return sha;
  await mkdir(dir, { recursive: true });
  const temporary = join(dir, `tmp_obj_forgefold_${randomUUID()}`);
  try {
    await writeFile(temporary, data, { mode: 0o444 });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return sha;
};

interface TreeEntry {
  /** `100644`, `100755`, `120000`, `160000`, or `40000` for a tree. */
  readonly mode: string;
  readonly name: string;
  readonly sha: Sha;
}

/** Git's order of tree entries: by name as bytes, a tree's name compared as if it ended with `/`. */
const sortKey = (entry: TreeEntry) => Buffer.from(entry.mode === '40000' ? `${entry.name}/` : entry.name, 'utf8');

/** A tree object's content: `<mode> <name>\0<20-byte sha>` per entry, in git's order. */
const treeContent = (entries: readonly TreeEntry[]): Buffer => {
  const sorted = entries.map((entry) => ({ entry, key: sortKey(entry) })).sort((a, b) => Buffer.compare(a.key, b.key));
  return Buffer.concat(sorted.flatMap(({ entry }) => [Buffer.from(`${entry.mode} ${entry.name}\0`, 'utf8'), Buffer.from(entry.sha, 'hex')]));
};

const parentOf = (path: string) => {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
};

const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * The root tree of `files` (path → mode and sha), reusing `baseTrees` (directory path → tree sha of the base)
 * for every directory none of whose content changed (`changed`: the paths added, removed or modified). Trees
 * made anew are written. The root is `''`.
 */
export const writeTrees = async (
  gitDir: string,
  files: ReadonlyMap<string, { readonly mode: string; readonly sha: Sha }>,
  baseTrees: ReadonlyMap<string, Sha>,
  changed: Iterable<string>,
): Promise<Sha> => {
  const dirty = new Set<string>(['']);
  for (const path of changed) for (let dir = parentOf(path); !dirty.has(dir); dir = parentOf(dir)) dirty.add(dir);
  // Every directory that still holds something, and the direct children of the dirty ones.
  const children = new Map<string, TreeEntry[]>([...dirty].map((dir) => [dir, []]));
  const directories = new Set<string>();
  for (const [path, file] of files) {
    const parent = parentOf(path);
    children.get(parent)?.push({ mode: file.mode, name: nameOf(path), sha: file.sha });
    for (let dir = parent; dir !== '' && !directories.has(dir); dir = parentOf(dir)) directories.add(dir);
  }
  // Deepest first, so a dirty directory's sha is known before its parent's tree is made.
  const pending = [...directories].filter((dir) => dirty.has(dir)).sort((a, b) => b.split('/').length - a.split('/').length);
  const made = new Map<string, Sha>();
  const writes: Promise<Sha>[] = [];
  const make = (dir: string): Sha => {
    const content = treeContent(children.get(dir)!);
    const { sha } = looseObject('tree', content);
    writes.push(writeObject(gitDir, 'tree', content));
    made.set(dir, sha);
    return sha;
  };
  // Subdirectories of dirty directories: their own sha when dirty (made below), else the base's.
  for (const dir of directories) {
    const parent = parentOf(dir);
    if (!dirty.has(parent) || dirty.has(dir)) continue;
    const sha = baseTrees.get(dir);
    if (sha === undefined) throw new Error(`the base has no tree for ${dir}`);
    children.get(parent)!.push({ mode: '40000', name: nameOf(dir), sha });
  }
  for (const dir of pending) children.get(parentOf(dir))!.push({ mode: '40000', name: nameOf(dir), sha: make(dir) });
  const root = make('');
  await Promise.all(writes);
  return root;
};
