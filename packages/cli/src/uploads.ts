/**
 * Uploaded files (avatars) under the data directory: `<data>/uploads/<first two hex digits>/<sha256>`, written
 * once (0600, through a temporary file and a rename) and never changed, so a crash leaves either nothing or the
 * whole file. The event log records which digest is whose avatar.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex, type UploadStore } from '@forgefold/http-adapter';
import { DATA_DIR_MODE, SECRET_FILE_MODE } from './secure.js';

/** The uploads directory inside a data directory. */
export const UPLOADS_DIR = 'uploads';

const DIGEST = /^[0-9a-f]{64}$/;

export const fileUploadStore = (dir: string): UploadStore => {
  const pathOf = (digest: string): string => join(dir, digest.slice(0, 2), digest);
  return {
    put: async (data) => {
      const digest = sha256Hex(data);
      const path = pathOf(digest);
      const present = await stat(path).then((found) => found.size === data.length, () => false);
      if (present) return digest;
      await mkdir(join(dir, digest.slice(0, 2)), { recursive: true, mode: DATA_DIR_MODE });
      const temporary = `${path}.${randomBytes(6).toString('hex')}.partial`;
      try {
        await writeFile(temporary, data, { mode: SECRET_FILE_MODE, flag: 'wx' });
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      return digest;
    },
    get: async (digest) => {
      if (!DIGEST.test(digest)) return undefined;
      try {
        return await readFile(pathOf(digest));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
};
