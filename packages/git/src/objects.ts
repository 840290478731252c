/** Parsing git's commit and tag objects, shas, and dates, into the port's plain data. */
import type { Commit, Sha, Tagger } from './types.js';

export const ZERO_SHA = '0000000000000000000000000000000000000000';
/** The empty tree's id: the "parent" a root commit is diffed against. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904' as Sha;

const shaPattern = /^[0-9a-f]{40}$/;
export const isSha = (value: string): value is Sha => shaPattern.test(value);
/** The sha, or null when `value` is not a full lowercase 40-hex id. */
export const parseSha = (value: string): Sha | null => (isSha(value) ? value : null);
/** Casts a value that git printed as an object id. */
export const asSha = (value: string): Sha => {
  if (!isSha(value)) throw new Error(`not a sha: ${JSON.stringify(value)}`);
  return value;
};
/** git's zero id stands for "absent" in hooks and raw diffs. */
export const shaOrNull = (value: string): Sha | null => (value === ZERO_SHA ? null : asSha(value));

// ---------------------------------------------------------------------------------------------------------
// Dates: git stores seconds since the epoch and the author's offset; the platform prints local time with that
// offset and milliseconds (`2021-05-01T10:00:00.000+02:00`).

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `1619856000 +0200` → `2021-05-01T10:00:00.000+02:00`. */
export const isoFromGit = (seconds: number, offset: string): string => {
  const sign = offset.startsWith('-') ? -1 : 1;
  const minutes = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5)));
  const local = new Date((seconds + minutes * 60) * 1000);
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}.000`;
  return `${date}T${time}${offset.slice(0, 3)}:${offset.slice(3, 5)}`;
};

const isoPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * An ISO 8601 instant → git's `<seconds> <offset>`, keeping the offset it was written with (`Z` → `+0000`).
 * Fractions of a second are dropped: git keeps whole seconds. Null when the text is not such an instant.
 */
export const gitDateFromIso = (iso: string): string | null => {
  const match = isoPattern.exec(iso);
  if (!match) return null;
  const millis = Date.parse(iso);
  if (Number.isNaN(millis)) return null;
  const zone = match[7]!;
  const offset = zone === 'Z' ? '+0000' : zone.replace(':', '');
  return `${Math.floor(millis / 1000)} ${offset}`;
};

// ---------------------------------------------------------------------------------------------------------
// Objects

interface Ident {
  readonly name: string;
  readonly email: string;
  readonly date: string;
}

const identPattern = /^(.*?) ?<([^>]*)> (-?\d+) ([+-]\d{4})$/;

const parseIdent = (line: string): Ident => {
  const match = identPattern.exec(line);
  if (!match) return { name: line, email: '', date: isoFromGit(0, '+0000') };
  return { name: match[1]!, email: match[2]!, date: isoFromGit(Number(match[3]), match[4]!) };
};

/** Headers (continuation lines of multi-line headers such as `gpgsig` skipped) and the message. */
const splitObject = (data: Buffer): { headers: [string, string][]; message: string } => {
  const text = data.toString('utf8');
  const end = text.indexOf('\n\n');
  const head = end === -1 ? text : text.slice(0, end);
  const message = end === -1 ? '' : text.slice(end + 2);
  const headers: [string, string][] = [];
  for (const line of head.split('\n')) {
    if (line.startsWith(' ') || line === '') continue;
    const space = line.indexOf(' ');
    headers.push(space === -1 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)]);
  }
  return { headers, message };
};

/** The first line of a message (the platform's `full_title`). */
export const titleOf = (message: string): string => message.split(/[\r\n]/, 1)[0] ?? '';

export const parseCommit = (id: Sha, data: Buffer): Commit => {
  const { headers, message } = splitObject(data);
  let tree = '';
  const parents: Sha[] = [];
  let author: Ident = { name: '', email: '', date: isoFromGit(0, '+0000') };
  let committer = author;
  for (const [key, value] of headers) {
    if (key === 'tree') tree = value;
    else if (key === 'parent') parents.push(asSha(value));
    else if (key === 'author') author = parseIdent(value);
    else if (key === 'committer') committer = parseIdent(value);
  }
  return {
    id,
    short_id: id.slice(0, 8),
    title: titleOf(message),
    message,
    parent_ids: parents,
    author_name: author.name,
    author_email: author.email,
    authored_date: author.date,
    committer_name: committer.name,
    committer_email: committer.email,
    committed_date: committer.date,
    tree_id: asSha(tree),
  };
};

export interface TagObject {
  readonly object: Sha;
  readonly type: string;
  readonly name: string;
  readonly tagger: Tagger | null;
  readonly message: string;
}

/** A tag object. The message loses the newline git ends it with (the platform shows the stripped annotation). */
export const parseTag = (data: Buffer): TagObject => {
  const { headers, message } = splitObject(data);
  let object = '';
  let type = '';
  let name = '';
  let tagger: Tagger | null = null;
  for (const [key, value] of headers) {
    if (key === 'object') object = value;
    else if (key === 'type') type = value;
    else if (key === 'tag') name = value;
    else if (key === 'tagger') tagger = parseIdent(value);
  }
  // A signed tag carries its signature after the message; it is not part of the annotation.
  const signature = message.indexOf('-----BEGIN PGP SIGNATURE-----');
  const annotation = signature === -1 ? message : message.slice(0, signature);
  return { object: asSha(object), type, name, tagger, message: annotation.replace(/\n$/, '') };
};

/** `git mktag` input: a deterministic annotated tag object. */
export const formatTag = (input: { object: Sha; type: string; name: string; tagger: string; message: string }): string =>
  `object ${input.object}\ntype ${input.type}\ntag ${input.name}\ntagger ${input.tagger}\n\n${input.message}`;
