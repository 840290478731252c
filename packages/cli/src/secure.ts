/**
 * File modes of what Forgefold writes. The event database holds password digests, token digests, e-mail
 * addresses and SCIM identities, and the root token file a live administrator token: they are created
 * readable by their owner only (0600), the data directory 0700.
 */
import { chmod, mkdir, open, readdir, readFile, stat } from 'node:fs/promises';
import { newSecretKey, parseSecretKey } from '@forgefold/http-adapter';
import { join } from 'node:path';
import { snapshotsPathOf } from '@forgefold/sqlite-store';
import { DATABASE_FILE, REPOSITORIES_DIR } from './paths.js';

export const SECRET_FILE_MODE = 0o600;
export const DATA_DIR_MODE = 0o700;

/** The root token file `serve` writes on first start. */
export const ROOT_TOKEN_FILE = 'initial_root_token';

/** The key secrets at rest are sealed with (cluster tokens and certificates), 64 hex digits, 0600. */
export const SECRET_KEY_FILE = 'secret_key';

/** SQLite's companions of the database (write-ahead log, shared memory index, rollback journal). */
const DATABASE_COMPANIONS = ['-wal', '-shm', '-journal'];

/** The snapshot file beside the event database (the state, in the snapshot format: the same secrets). */
const SNAPSHOTS_FILE = snapshotsPathOf(DATABASE_FILE);

/** The database files of a data directory: the event database, the snapshot file and their companions. */
export const databaseFiles = (dir: string): string[] =>
  [DATABASE_FILE, SNAPSHOTS_FILE].flatMap((file) => [file, ...DATABASE_COMPANIONS.map((suffix) => `${file}${suffix}`)]).map((name) => join(dir, name));

/** Names a data directory holds when Forgefold alone uses it. */
const isOwnFile = (name: string): boolean =>
  databaseFiles('').includes(name) || name === ROOT_TOKEN_FILE || name === SECRET_KEY_FILE || name === 'uploads' || name === REPOSITORIES_DIR;

const modeOf = async (path: string): Promise<number | undefined> => {
  try {
    return (await stat(path)).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

const octal = (mode: number): string => `0${mode.toString(8).padStart(3, '0')}`;

/** Tightens a file to 0600 if others may read or write it (files written by older versions were 0644). */
export const tightenSecretFile = async (path: string): Promise<boolean> => {
  const mode = await modeOf(path);
  if (mode === undefined || (mode & 0o077) === 0) return false;
  await chmod(path, SECRET_FILE_MODE);
  return true;
};

/**
 * Prepares a data directory before the store opens it:
 * - creates it 0700 when missing; an existing one is tightened to 0700 only when it holds nothing but
 *   Forgefold's own files (a directory shared with other files, `--data /tmp` say, is left alone: the
 *   returned warning says so);
 * - creates the database file 0600 when missing, so that SQLite creates its -wal and -shm files with the
 *   same mode (it copies the database's permissions), and tightens existing ones.
 * Returns warnings for the operator (one line each).
 */
export const prepareDataDir = async (dir: string, options: { readonly sqlite?: boolean } = {}): Promise<string[]> => {
  const warnings: string[] = [];
  const existing = await modeOf(dir);
  if (existing === undefined) {
    await mkdir(dir, { recursive: true, mode: DATA_DIR_MODE });
    // mkdir's mode passes through the umask, which could only remove bits; set it exactly.
    await chmod(dir, DATA_DIR_MODE);
  } else if ((existing & 0o077) !== 0) {
    const names = await readdir(dir);
    if (names.every(isOwnFile)) await chmod(dir, DATA_DIR_MODE);
    else warnings.push(`data directory ${dir} is accessible to other users (mode ${octal(existing)}) and holds other files; run chmod 700 on it or choose another one`);
  }
  const database = join(dir, DATABASE_FILE);
  for (const path of [...databaseFiles(dir), join(dir, ROOT_TOKEN_FILE), join(dir, SECRET_KEY_FILE)]) await tightenSecretFile(path);
  // 'a' creates the file if missing and never truncates one that a concurrent process just created. Not with the
  // log on PostgreSQL (`sqlite: false`): an empty file there would suggest a log that is not.
  if (options.sqlite ?? true) {
    const handle = await open(database, 'a', SECRET_FILE_MODE);
    await handle.close();
  }
  return warnings;
};

/**
 * The instance's secret key: `FORGEFOLD_SECRET_KEY` when set (64 hex digits or base64 of 32 bytes), else the key
 * file in the data directory, created 0600 with a random key on first start. Losing it loses the secrets sealed
 * with it (cluster tokens can then be given again); it is never written anywhere else.
 */
export const loadSecretKey = async (dir: string, fromEnv: string | undefined): Promise<Buffer> => {
  if (fromEnv !== undefined && fromEnv !== '') return parseSecretKey(fromEnv);
  const path = join(dir, SECRET_KEY_FILE);
  try {
    const text = await readFile(path, 'utf8');
    await tightenSecretFile(path);
    return parseSecretKey(text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = newSecretKey();
  // `wx`: two nodes starting on one directory never overwrite each other's key; the loser reads the winner's.
  try {
    const handle = await open(path, 'wx', SECRET_FILE_MODE);
    await handle.writeFile(`${key.toString('hex')}\n`);
    await handle.close();
    await chmod(path, SECRET_FILE_MODE);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return parseSecretKey(await readFile(path, 'utf8'));
    throw error;
  }
};
