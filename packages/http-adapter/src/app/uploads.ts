/** An upload store in memory: for embedded and in-memory servers (`forgefold serve` keeps files on disk). */
import { createHash } from 'node:crypto';
import type { UploadStore } from './deps.js';

export const sha256Hex = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

export const memoryUploadStore = (): UploadStore => {
  const files = new Map<string, Buffer>();
  return {
    put: async (data) => {
      const digest = sha256Hex(data);
      if (!files.has(digest)) files.set(digest, Buffer.from(data));
      return digest;
    },
    get: async (digest) => files.get(digest),
  };
};
