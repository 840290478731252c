/**
 * Diffs in the platform's shape. One `git diff --raw --patch -z --full-index --find-renames=30%` (the flags
 * Gitaly's CommitDiff uses) gives the file list with exact paths (NUL-separated) and then the patches, one
 * `diff --git` block per raw entry in the same order; a type change (T) is shown as a deletion and an addition,
 * as the platform does.
 */
import { createHash } from 'node:crypto';
import { shaOrNull } from './objects.js';
import type { DiffFile } from './types.js';

export const DEFAULT_MAX_PATCH_BYTES = 200 * 1024;

/** The flags of every diff the engine shows. */
export const diffFlags = ['--raw', '--patch', '-z', '--no-color', '--no-ext-diff', '--full-index', '--abbrev=40', '--find-renames=30%'] as const;

interface RawEntry {
  readonly oldMode: string;
  readonly newMode: string;
  readonly oldSha: string;
  readonly newSha: string;
  readonly status: string;
  readonly oldPath: string;
  readonly newPath: string;
}

/** Octal mode as the platform renders it: git's six digits, `0` for absent. */
const mode = (raw: string) => (/^0+$/.test(raw) ? '0' : raw.replace(/^0+(?=\d{6})/, ''));

const zero = '0000000000000000000000000000000000000000';

const parseRaw = (text: string): { entries: RawEntry[]; patchStart: number } => {
  const entries: RawEntry[] = [];
  let at = 0;
  while (at < text.length && text[at] === ':') {
    const headerEnd = text.indexOf('\0', at);
    const [oldMode, newMode, oldSha, newSha, status] = text.slice(at + 1, headerEnd).split(' ') as [string, string, string, string, string];
    const firstEnd = text.indexOf('\0', headerEnd + 1);
    const oldPath = text.slice(headerEnd + 1, firstEnd);
    at = firstEnd + 1;
    let newPath = oldPath;
    if (status.startsWith('R') || status.startsWith('C')) {
      const secondEnd = text.indexOf('\0', at);
      newPath = text.slice(at, secondEnd);
      at = secondEnd + 1;
    }
    if (status === 'T') {
      entries.push({ oldMode, newMode: '000000', oldSha, newSha: zero, status: 'D', oldPath, newPath });
      entries.push({ oldMode: '000000', newMode, oldSha: zero, newSha, status: 'A', oldPath, newPath });
    } else {
      entries.push({ oldMode, newMode, oldSha, newSha, status, oldPath, newPath });
    }
  }
  // The raw part ends with an empty record.
  if (text[at] === '\0') at++;
  return { entries, patchStart: at };
};

/** Splits the patch text into `diff --git` blocks. */
const splitPatches = (patch: string): string[] => {
  if (patch.length === 0) return [];
  const starts: number[] = [];
  const header = /^diff --git /gm;
  for (let match = header.exec(patch); match !== null; match = header.exec(patch)) starts.push(match.index);
  return starts.map((start, index) => patch.slice(start, starts[index + 1] ?? patch.length));
};

/** The platform's diff text of one block: from the first hunk header on. */
const hunksOf = (block: string): { text: string; binary: boolean } => {
  const hunk = /^@@ /m.exec(block);
  if (hunk) return { text: block.slice(hunk.index), binary: false };
  return { text: '', binary: /^(?:Binary files |GIT binary patch)/m.test(block) };
};

export const parseDiffOutput = (output: Buffer, maxPatchBytes = DEFAULT_MAX_PATCH_BYTES): DiffFile[] => {
  const text = output.toString('utf8');
  const { entries, patchStart } = parseRaw(text);
  const blocks = splitPatches(text.slice(patchStart));
  return entries.map((entry, index): DiffFile => {
    const { text: hunks, binary } = hunksOf(blocks[index] ?? '');
    const tooLarge = Buffer.byteLength(hunks, 'utf8') >= maxPatchBytes;
    return {
      old_path: entry.oldPath,
      new_path: entry.newPath,
      a_mode: mode(entry.oldMode),
      b_mode: mode(entry.newMode),
      new_file: entry.oldSha === zero,
      renamed_file: entry.oldPath !== entry.newPath,
      deleted_file: entry.newSha === zero,
      diff: tooLarge ? '' : hunks,
      too_large: tooLarge,
      binary,
      old_blob_id: shaOrNull(entry.oldSha),
      new_blob_id: shaOrNull(entry.newSha),
    };
  });
};

/** `git diff --numstat -z` → additions and deletions (binary files, shown as `-`, count 0). */
export const parseNumstat = (output: Buffer): { additions: number; deletions: number } => {
  let additions = 0;
  let deletions = 0;
  for (const record of output.toString('utf8').split('\0')) {
    const match = /^(\d+|-)\t(\d+|-)\t/.exec(record);
    if (!match) continue;
    additions += match[1] === '-' ? 0 : Number(match[1]);
    deletions += match[2] === '-' ? 0 : Number(match[2]);
  }
  return { additions, deletions };
};

// ---------------------------------------------------------------------------------------------------------
// Lines of a diff, as the platform's `Gitlab::Diff::Parser` numbers them (diff notes anchor on these).

export type DiffLineType = 'match' | 'new' | 'old' | null | 'old-nonewline' | 'new-nonewline' | '-nonewline';

export interface DiffLine {
  readonly type: DiffLineType;
  readonly text: string;
  /** Position in the list of lines (the parser's `line_obj_index`). */
  readonly index: number;
  readonly old_pos: number;
  readonly new_pos: number;
}

/** The parser's `filename?`: lines it skips as headers (bug-compatible: a removed line `-- a…` is skipped too). */
const isFilenameLine = (line: string) => ['--- /dev/null', '+++ /dev/null', '--- a', '+++ b', '+++ a', '--- b'].some((prefix) => line.startsWith(prefix));

export const parseDiffLines = (diff: string): DiffLine[] => {
  const lines: DiffLine[] = [];
  let oldPos = 1;
  let newPos = 1;
  let context: 'old' | 'new' | null = null;
  const raw = diff.split('\n');
  if (raw[raw.length - 1] === '') raw.pop();
  for (const line of raw) {
    if (isFilenameLine(line)) continue;
    if (line.startsWith('@@ -')) {
      oldPos = Math.abs(Number(/-(\d*)/.exec(line)?.[1] ?? 0) || 0);
      newPos = Math.abs(Number(/\+(\d*)/.exec(line)?.[1] ?? 0) || 0);
      // The hunk at the top of the file has no "match" line.
      if (oldPos <= 1 && newPos <= 1) continue;
      lines.push({ type: 'match', text: line, index: lines.length, old_pos: oldPos, new_pos: newPos });
      continue;
    }
    const first = line[0];
    if (first === '\\') {
      lines.push({ type: `${context ?? ''}-nonewline`, text: line, index: lines.length, old_pos: oldPos, new_pos: newPos });
      continue;
    }
    lines.push({ type: first === '+' ? 'new' : first === '-' ? 'old' : null, text: line, index: lines.length, old_pos: oldPos, new_pos: newPos });
    if (first === '+') {
      newPos++;
      context = 'new';
    } else if (first === '-') {
      oldPos++;
      context = 'old';
    } else {
      newPos++;
      oldPos++;
    }
  }
  return lines;
};

/** A diff note's `line_code`: `<sha1 of the path>_<old line>_<new line>`. */
export const lineCode = (path: string, oldPos: number, newPos: number): string =>
  `${createHash('sha1').update(path).digest('hex')}_${oldPos}_${newPos}`;
