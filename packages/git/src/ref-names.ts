/**
 * Ref names: what git accepts (`git check-ref-format`), what the platform accepts for a new branch or tag
 * (`Gitlab::GitRefValidator`), the platform's ref search, and its version order (`VersionSorter`).
 */

/** `git check-ref-format` for a full ref name (`refs/heads/x`), without `--allow-onelevel`. */
export const isValidFullRefName = (ref: string): boolean => {
  if (ref === '@' || ref.length === 0) return false;
  if (ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.') || ref.includes('//')) return false;
  if (ref.includes('..') || ref.includes('@{')) return false;
  // Control characters, space, and the characters that mean something in revision syntax or globs.
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref)) return false;
  const components = ref.split('/');
  if (components.length < 2) return false;
  return components.every((component) => !component.startsWith('.') && !component.endsWith('.lock'));
};

/**
 * A name for a new branch or tag, as the platform checks it (`Gitlab::GitRefValidator.validate`): not one of the
 * expanded prefixes, not an option, not `HEAD`, and a valid ref below `refs/heads/`.
 */
export const isValidNewRefName = (name: string): boolean => {
  if (name.startsWith('refs/heads/') || name.startsWith('refs/remotes/') || name.startsWith('-')) return false;
  if (name === 'HEAD') return false;
  return isValidFullRefName(`refs/heads/${name}`);
};

/**
 * A revision a caller may ask for: a ref name or an abbreviated or full sha, optionally followed by `~n`/`^n`
 * (as `commits/main~1`). Anything else (`:/text`, `@{…}`, option-like text, whitespace) is refused before git
 * sees it.
 */
export const isSafeRevision = (revision: string): boolean => {
  if (revision.length === 0 || revision.length > 1024 || revision.startsWith('-')) return false;
  const base = revision.replace(/(?:[~^]\d*)+$/, '');
  if (base === 'HEAD' || /^[0-9a-fA-F]{4,40}$/.test(base)) return true;
  return base.length > 0 && isValidFullRefName(base.startsWith('refs/') ? base : `refs/${base}`);
};

// ---------------------------------------------------------------------------------------------------------
// Search (14.7's TagsFinder/BranchesFinder): case-insensitive; `^term` is a prefix, `term$` a suffix, anything
// else a substring with an exact match moved to the front. The markers are taken literally otherwise.

export const searchRefNames = <A>(items: readonly A[], search: string | undefined, nameOf: (item: A) => string): A[] => {
  if (search === undefined || search === '') return [...items];
  const term = search.toLowerCase();
  if (term.startsWith('^')) {
    const prefix = term.slice(1);
    return items.filter((item) => nameOf(item).toLowerCase().startsWith(prefix));
  }
  if (term.endsWith('$')) {
    const suffix = term.slice(0, -1);
    return items.filter((item) => nameOf(item).toLowerCase().endsWith(suffix));
  }
  const matches = items.filter((item) => nameOf(item).toLowerCase().includes(term));
  const exact = matches.findIndex((item) => nameOf(item).toLowerCase() === term);
  if (exact > 0) matches.unshift(...matches.splice(exact, 1));
  return matches;
};

// ---------------------------------------------------------------------------------------------------------
// Version order, as the `version_sorter` gem compares: a name is a list of components, each a run of ASCII
// digits (a number, or text when it overflows 32 bits) or an optional `-` followed by ASCII letters (text);
// other bytes separate components. Numbers beat text; text compares bytewise; when one list is a prefix of the
// other, the longer one is greater if its next component is a number (1.0 < 1.0.1) and smaller if it is text
// (1.0.rc1 < 1.0). At most 64 components count.

type Component = number | Buffer;

const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;
const isAlpha = (byte: number) => (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);

export const versionComponents = (name: string): Component[] => {
  const bytes = Buffer.from(name, 'utf8');
  const components: Component[] = [];
  let offset = 0;
  while (offset < bytes.length && components.length < 64) {
    const byte = bytes[offset]!;
    if (isDigit(byte)) {
      const start = offset;
      while (offset < bytes.length && isDigit(bytes[offset]!)) offset++;
      const digits = bytes.subarray(start, offset);
      const value = Number(digits.toString('latin1'));
      components.push(value <= 0xffffffff ? value : Buffer.from(digits));
    } else if (byte === 0x2d || isAlpha(byte)) {
      const start = offset;
      if (byte === 0x2d) offset++;
      while (offset < bytes.length && isAlpha(bytes[offset]!)) offset++;
      components.push(bytes.subarray(start, offset));
    } else {
      offset++;
    }
  }
  return components;
};

export const compareVersionComponents = (a: readonly Component[], b: readonly Component[]): number => {
  const shared = Math.min(a.length, b.length);
  for (let n = 0; n < shared; n++) {
    const ca = a[n]!;
    const cb = b[n]!;
    const numA = typeof ca === 'number';
    const numB = typeof cb === 'number';
    if (numA !== numB) return numA ? 1 : -1;
    const cmp = numA ? (ca as number) - (cb as number) : Buffer.compare(ca as Buffer, cb as Buffer);
    if (cmp !== 0) return cmp < 0 ? -1 : 1;
  }
  if (a.length < b.length) return typeof b[shared] === 'number' ? -1 : 1;
  if (a.length > b.length) return typeof a[shared] === 'number' ? 1 : -1;
  return 0;
};

/** Plain bytewise order, the tie-break that makes every order total. */
export const compareNames = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** Sorts names in version order (ascending), ties broken bytewise. */
export const sortByVersion = <A>(items: readonly A[], nameOf: (item: A) => string): A[] =>
  items
    .map((item) => ({ item, name: nameOf(item), key: versionComponents(nameOf(item)) }))
    .sort((x, y) => compareVersionComponents(x.key, y.key) || compareNames(x.name, y.name))
    .map(({ item }) => item);
