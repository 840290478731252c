/**
 * `Gitlab::Slug::Environment#generate`: lowercase letters, digits and dashes, starting with a letter, no repeated
 * dashes, at most 24 characters, not ending with a dash; a name that had to change (or is too long) is cut to 17
 * characters and gets a dash (unless it ends with one) and the last six base-36 digits of the name's SHA-256.
 */
import { sha256Hex } from '../../kernel/hash.js';

/** `digest` is the platform's `Digest::SHA2.hexdigest` (its specs stub it; so can ours). */
export const environmentSlug = (name: string, digest: (text: string) => string = sha256Hex): string => {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, '-');
  if (slug.length > 24 || slug !== name) {
    const cut = slug.slice(0, 17);
    return `${cut}${cut.endsWith('-') ? '' : '-'}${BigInt(`0x${digest(name)}`).toString(36).slice(-6)}`;
  }
  return slug.replace(/-$/, '');
};
