/**
 * `Gitlab::Slug::Environment#generate`: lowercase letters, digits and dashes, starting with a letter, no repeated
 * dashes, at most 24 characters; a name that had to change (or is too long) is cut to 17 characters and gets a
 * dash and six base-36 characters of the name's SHA-256.
 */
import { sha256Hex } from '../../kernel/hash.js';

const isLetter = (c: string | undefined): boolean => c !== undefined && c >= 'a' && c <= 'z';

const suffix = (name: string): string => {
  const value = BigInt(`0x${sha256Hex(name)}`);
  return value.toString(36).slice(-6);
};

export const environmentSlug = (name: string): string => {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!isLetter(slug[0])) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, '-');
  if (slug.length > 24 || slug !== name) return `${slug.slice(0, 17)}-${suffix(name)}`;
  return slug.replace(/-$/, '');
};
