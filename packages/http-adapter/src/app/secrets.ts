/** Token values and password digests: generated and hashed here, at the edge; the core only sees digests. */
import { createCipheriv, createDecipheriv, hash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;

/**
 * Token digests are SHA-256: tokens are long random values, so a slow hash adds nothing. The one-shot
 * `hash` costs a third of a createHash chain, and every authenticated request pays it.
 */
export const tokenDigest = (token: string): string => hash('sha256', token, 'hex');

/** A new token value with the platform's personal-access-token prefix. */
export const newTokenValue = (prefix = 'glpat-'): string => `${prefix}${randomBytes(15).toString('base64url')}`;

export const passwordDigest = async (password: string): Promise<string> => {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
};

export const verifyPassword = async (password: string, digest: string | null): Promise<boolean> => {
  if (!digest) return false;
  const [scheme, salt, expected] = digest.split('$');
  if (scheme !== 'scrypt' || !salt || !expected) return false;
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), 32);
  const wanted = Buffer.from(expected, 'base64');
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
};

/**
 * Secrets at rest (cluster tokens and certificates): AES-256-GCM under the instance's 32-byte key. The adapter
 * encrypts before a command is built, so the log, snapshots and events only ever hold ciphertext:
 * `v1:<base64url of iv (12 bytes) | tag (16 bytes) | ciphertext>`.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error(`the secret key must be 32 bytes, got ${key.length}`);
    this.key = Buffer.from(key);
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The plaintext, or null when the value was not sealed under this key (or was altered). */
  decrypt(sealed: string): string | null {
    if (!sealed.startsWith('v1:')) return null;
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    if (raw.length < 28) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

/**
 * `FORGEFOLD_SECRET_KEY`: 64 hex digits or the base64 of 32 bytes; anything else is refused (a short key would be a
 * weak one).
 */
export const parseSecretKey = (text: string): Buffer => {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const decoded = Buffer.from(trimmed, 'base64');
  if (decoded.length === 32 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return decoded;
  throw new Error('FORGEFOLD_SECRET_KEY must be 32 bytes, as 64 hex digits or base64');
};

/** A fresh random key (a host without a configured key; a server started by `forgefold serve` keeps one on disk). */
export const newSecretKey = (): Buffer => randomBytes(32);
