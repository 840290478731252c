/**
 * A diff note's position checked against the real diff (`DiffNote#set_line_code`, `Position#line_code`,
 * `Gitlab::Diff::LinesUnfolder`): the diff between the position's base (or start) and head SHAs, from git. A line
 * matches exactly — an added line by `new_line` only, a removed one by `old_line` only, an unchanged one by both —
 * and an unchanged line outside the hunks is unfolded when its two numbers agree with the hunks around it and it
 * exists in the new file. The line code is `Gitlab::Git.diff_line_code(file_path, new_pos, old_pos)`.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { DiffFact, Position } from '@forgefold/core';
import { lineCode, parseDiffLines, type Repository } from '@forgefold/git';

type Line = number | null;

const lineCodeIn = async (git: Repository, position: Position, oldLine: Line, newLine: Line): Promise<string | null> => {
  const from = position.base_sha ?? position.start_sha;
  const to = position.head_sha;
  if (!from || !to) return null;
  const paths = [...new Set([position.old_path, position.new_path].filter((path): path is string => !!path))];
  const compared = await git.compare({ from, to, straight: true, paths });
  if (E.isLeft(compared)) return null;
  const file = compared.right.diffs.find((candidate) => candidate.new_path === position.new_path || candidate.old_path === position.old_path);
  if (!file) return null;
  const path = file.new_path || file.old_path;
  const lines = parseDiffLines(file.diff).filter((line) => line.type === null || line.type === 'new' || line.type === 'old');
  const exact = lines.find((line) => (line.type === 'new' ? null : line.old_pos) === oldLine && (line.type === 'old' ? null : line.new_pos) === newLine);
  if (exact) return lineCode(path, exact.old_pos, exact.new_pos);
  // Unfolding: an unchanged line between (or around) the hunks.
  if (oldLine === null || newLine === null || file.deleted_file || file.new_file) return null;
  if (lines.some((line) => line.type !== 'old' && line.new_pos === newLine)) return null;
  let delta = 0;
  for (const line of lines) {
    if (line.type === 'new' && line.new_pos < newLine) delta++;
    else if (line.type === 'old' && line.new_pos <= newLine) delta--;
  }
  if (newLine - delta !== oldLine || newLine < 1) return null;
  const blob = await git.blob({ ref: to, path });
  if (E.isLeft(blob)) return null;
  const text = blob.right.content.toString('utf8');
  const count = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return newLine <= count ? lineCode(path, oldLine, newLine) : null;
};

/** The position as the API received it, and its line code (null: not a line of that diff). */
export const diffFact = async (git: Repository, position: Position): Promise<DiffFact> => {
  if (position.position_type !== 'text') return { position, line_code: null };
  const oldLine = position.old_line ?? null;
  const newLine = position.new_line ?? null;
  if (oldLine === null && newLine === null) return { position, line_code: null };
  return { position, line_code: await lineCodeIn(git, position, oldLine, newLine) };
};
