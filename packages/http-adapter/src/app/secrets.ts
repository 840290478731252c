/** Token values and password digests: generated and hashed here, at the edge; the core only sees digests. */
import { hash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
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
