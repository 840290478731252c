/**
 * Commit comments (lib/api/commits.rb, 14.7; reference §5.20): `GET …/repository/commits/:sha/comments` lists every
 * note on the commit (`commit.notes.fresh`, paginated), `POST` adds one. Both need `download_code` (the API's
 * `before`), then the commit ("404 Commit Not Found"). A comment with `path` and `line` becomes a diff note when a
 * line of the commit's diff of that file has that new position and that type (`new` or `old`: context lines never
 * match); otherwise it is a plain note. The answer is `Entities::CommitNote`.
 */
import * as E from 'fp-ts/lib/Either.js';
import { BLANK_SHA, findNote, findNoteable, findUser, notesOfNoteable, noteVisibleTo, type DiffFact, type Note, type NoteableRef } from '@forgefold/core';
import { lineCode, parseDiffLines } from '@forgefold/git';
import { ApiError, arraySource, created, decodeParams, isBlank, optional, paginate, paginationParams, requires, route, schema, T, type AnyRouteDef } from '../../http/index.js';
import { presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';
import { must, projectOf, requireRepositoryAbility } from '../repositories/shared.js';

const COMMIT_NOT_FOUND = '404 Commit Not Found';

/** `note` required; `line` and `line_type` belong to `given :path` (`pathParams`, decoded in the handler only with a path that is not blank). */
const createParams = schema(requires('note', T.String), optional('path', T.String), optional('line', T.JSON), optional('line_type', T.JSON));

/** `given :path do requires :line, type: Integer; requires :line_type, values: %w[new old], default: 'new' end`. */
const pathParams = schema(requires('line', T.Integer), optional('line_type', T.String, { values: ['new', 'old'] as const, default: 'new' }));

/**
 * `Entities::CommitNote`: `path`, `line` (`Gitlab::Diff::Line#line`: the new position, or the old one of a removed
 * line) and `line_type` (`new`, `old`, or null for a context line) only for a diff note whose line was found.
 */
export const commitNoteEntity = (note: Note, ctx: PresentContext) => {
  const position = note.type === 'DiffNote' ? note.position : null;
  const found = position !== null && note.line_code !== null;
  const oldLine = position?.old_line ?? null;
  const newLine = position?.new_line ?? null;
  const author = note.author_id === null ? undefined : findUser(ctx.state.users, note.author_id);
  return {
    note: note.body,
    path: position ? (position.new_path ?? position.old_path) : null,
    line: found ? (newLine ?? oldLine) : null,
    line_type: found ? (newLine !== null && oldLine !== null ? null : newLine !== null ? 'new' : 'old') : null,
    author: author ? userBasic(author, ctx) : null,
    created_at: note.created_at,
  };
};

export const commitCommentRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const download = requireRepositoryAbility(deps, 'download_code');

  /** `user_project.commit(params[:sha])`, as the discussions' noteable reference. */
  const commitRef = async (ctx: Ctx): Promise<{ ref: NoteableRef & { kind: 'Commit' }; parent: string }> => {
    const project = projectOf(deps, ctx, 'download_code');
    const commit = await must(deps.repositories.open(project.id).findCommit(String(ctx.routeParams['sha'])), COMMIT_NOT_FOUND);
    return { ref: { kind: 'Commit', project_id: project.id, sha: commit.id }, parent: commit.parent_ids[0] ?? BLANK_SHA };
  };

  return [
    route({
      method: 'GET',
      path: '/projects/:id/repository/commits/:sha/comments',
      auth: 'optional',
      before: download,
      params: paginationParams,
      handler: async (ctx) => {
        const { ref } = await commitRef(ctx);
        const state = deps.app.state;
        const noteable = findNoteable(state, ref);
        const notes = noteable
          ? notesOfNoteable(state.discussions, noteable.key)
              .filter((note) => noteVisibleTo(state, viewerId(ctx), note))
              .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id))
          : [];
        const view = presentContext(deps, ctx, state);
        return paginate(ctx, arraySource(notes), { map: (note) => commitNoteEntity(note, view) });
      },
    }),
    route({
      method: 'POST',
      path: '/projects/:id/repository/commits/:sha/comments',
      before: download,
      params: createParams,
      handler: async (ctx) => {
        const { params } = ctx;
        let line: number | null = null;
        let lineType: 'new' | 'old' = 'new';
        // Grape skips a `given` block whose parameter is blank (`meets_dependency?`: `params[:path].blank?`), so a
        // blank path reads no line. Inside it, a blank or null `line` is nil, which `requires` lets through: a plain note.
        if (!isBlank(params.path)) {
          const given = decodeParams(pathParams, { line: params.line, line_type: params.line_type });
          if (!given.ok) throw ApiError.error(400, given.message);
          ({ line, line_type: lineType } = given.value);
        }
        const { ref, parent } = await commitRef(ctx);
        let diff: DiffFact | undefined;
        if (params.path && line !== null) {
          // `commit.raw_diffs(limits: false)`: the first file whose new path is `path` with a line of that new
          // position and type.
          const files = await must(deps.repositories.open(ref.project_id).commitDiff(ref.sha, { maxPatchBytes: Number.MAX_SAFE_INTEGER }), COMMIT_NOT_FOUND);
          for (const file of files.filter((candidate) => candidate.new_path === params.path)) {
            const match = parseDiffLines(file.diff).find((candidate) => candidate.new_pos === line && candidate.type === lineType);
            if (!match) continue;
            diff = {
              position: {
                base_sha: parent,
                start_sha: parent,
                head_sha: ref.sha,
                old_path: file.old_path,
                new_path: file.new_path,
                position_type: 'text',
                old_line: lineType === 'new' ? null : match.old_pos,
                new_line: lineType === 'old' ? null : match.new_pos,
              },
              line_code: lineCode(file.new_path, match.old_pos, match.new_pos),
              commit_diff_refs: { base_sha: parent, start_sha: parent, head_sha: ref.sha },
            };
            break;
          }
        }
        // A diff note starts a thread of its own; a plain note is an individual note.
        const result = await deps.app.execute(ctx.actor, { type: 'StartDiscussion', noteable: ref, body: params.note ?? '', ...(diff ? { diff } : { individual: true }) });
        if (E.isLeft(result)) {
          // `render_api_error!("Failed to save note #{note.errors.messages}", 400)` for the model's validations.
          const error = result.left;
          if (error._tag === 'BadRequest' && error.reason?.startsWith('Note {')) throw ApiError.message(400, `Failed to save note ${error.reason.slice('Note '.length)}`);
          throw ApiError.domain(error);
        }
        const noteId = (result.right.events[0]!.data as { note: { id: number } }).note.id;
        const state = result.right.state;
        const note = findNote(state.discussions, noteId)!;
        return created(commitNoteEntity(note, presentContext(deps, ctx, state)));
      },
    }),
  ];
};
