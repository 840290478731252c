import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the OS temp dir; `remove` deletes it. */
export const tempDir = (prefix = 'forgefold-store-') => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, file: (name = 'events.db') => join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
};

/** Runs `body` with a fresh temp directory, removed afterwards whether `body` succeeds or throws. */
export const inTempDir = async <T>(body: (temp: ReturnType<typeof tempDir>) => Promise<T>): Promise<T> => {
  const temp = tempDir();
  try {
    return await body(temp);
  } finally {
    temp.remove();
  }
};
