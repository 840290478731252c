/**
 * Discussions and notes (lib/api/discussions.rb, notes.rb, 14.7; reference §5) on issues, snippets, merge
 * requests, commits (under `/repository/commits/:sha` and `/commits/:sha`) and epics (by the epic's global id).
 * Every route authenticates first, then validates parameters, then finds the noteable the caller may read
 * ("404 <Type> Not Found"). Diff positions are checked against the real diff in git before the command runs.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  BLANK_SHA,
  canDownloadCode,
  discussionsPage,
  findDiscussionOf,
  findNoteable,
  findNoteOf,
  notFound,
  notesOfDiscussion,
  notesOfNoteable,
  canReadNote,
  threadsOf,
  type DiffFact,
  type Discussion,
  type DiscussionCommand,
  type DomainError,
  type Note,
  type Noteable,
  type NoteableRef,
  type Position,
  type State,
} from '@forgefold/core';
import { checkUnmodifiedSince, created, extend, noContent, ok, paginate, route, type AnyRouteDef, type OffsetSource } from '../../http/index.js';
import { findReadableGroup, findReadableProject, presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { discussionEntity, noteEntity } from './entities.js';
import { diffFact } from './diff-position.js';
import { editNoteParams, flatNotesParams, noteIdParams, pageParams, replyParams, resolveParams, startParams } from './params.js';

type Kind = NoteableRef['kind'];

interface NoteableRoute {
  readonly kind: Kind;
  /** The path down to the noteable, with `:noteable_id`. */
  readonly base: string;
  /** Whether the flat notes API (`…/notes`) exists for it (not for commits). */
  readonly notes: boolean;
}

const NOTEABLE_ROUTES: readonly NoteableRoute[] = [
  { kind: 'Issue', base: '/projects/:id/issues/:noteable_id', notes: true },
  { kind: 'Snippet', base: '/projects/:id/snippets/:noteable_id', notes: true },
  { kind: 'MergeRequest', base: '/projects/:id/merge_requests/:noteable_id', notes: true },
  { kind: 'Commit', base: '/projects/:id/repository/commits/:noteable_id', notes: false },
  { kind: 'Commit', base: '/projects/:id/commits/:noteable_id', notes: false },
  { kind: 'Epic', base: '/groups/:id/epics/:noteable_id', notes: true },
];

interface Found {
  readonly ref: NoteableRef;
  readonly noteable: Noteable;
}

const integer = (value: unknown): number => {
  const text = String(value);
  return /^\d+$/.test(text) ? Number(text) : NaN;
};

export const discussionRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  /** `find_noteable`: the parent (404 Project/Group), the noteable (404 <Type>), readable by the caller. */
  const findNoteableOf = async (kind: Kind, ctx: Ctx): Promise<E.Either<DomainError, Found>> => {
    const state = deps.app.state;
    const id = String(ctx.routeParams['id']);
    const raw = ctx.routeParams['noteable_id'];
    let ref: NoteableRef;
    if (kind === 'Epic') {
      const group = findReadableGroup(state, ctx, id);
      if (E.isLeft(group)) return group;
      ref = { kind, group_id: group.right.id, id: integer(raw) };
    } else {
      const project = findReadableProject(state, ctx, id);
      if (E.isLeft(project)) return project;
      if (kind === 'Commit') {
        if (!canDownloadCode(state, viewerId(ctx), project.right)) return E.left(notFound('Commit'));
        const commit = await deps.repositories.open(project.right.id).findCommit(String(raw));
        if (E.isLeft(commit)) return E.left(notFound('Commit'));
        ref = { kind, project_id: project.right.id, sha: commit.right.id };
      } else if (kind === 'Snippet') ref = { kind, project_id: project.right.id, id: integer(raw) };
      else ref = { kind, project_id: project.right.id, iid: integer(raw) };
    }
    const noteable = findNoteable(deps.app.state, ref);
    if (!noteable || !noteable.readableBy(viewerId(ctx))) return E.left(notFound(kind));
    return E.right({ ref, noteable });
  };

  const run = async (ctx: Ctx, command: DiscussionCommand) => deps.app.execute(ctx.actor, command);

  /** `Commit#diff_refs`: the first parent (the blank SHA for a root commit) as base and start, the commit as head. */
  const commitDiffRefs = async (projectId: number, sha: string): Promise<DiffFact['commit_diff_refs']> => {
    const commit = await deps.repositories.open(projectId).findCommit(sha);
    const base = E.isRight(commit) ? (commit.right.parent_ids[0] ?? BLANK_SHA) : BLANK_SHA;
    return { base_sha: base, start_sha: base, head_sha: sha };
  };

  /** The notes of a thread the caller may read (`readable_discussion_notes`). */
  const threadNotes = (state: State, noteable: Noteable, discussionId: string, viewer: number | null): Note[] => {
    const discussion = findDiscussionOf(state.discussions, noteable.key, discussionId);
    return discussion ? notesOfDiscussion(state.discussions, discussion).filter((note) => canReadNote(state, viewer, noteable, note)) : [];
  };

  /**
   * The thread as the caller sees it: without the cross-references whose mentioner the caller may not read and the
   * confidential notes they may not read (`Note#readable_by?`); null when nothing is left (the platform builds no
   * discussion from no notes).
   */
  const visibleThread = (state: State, noteable: Noteable, discussion: Discussion, viewer: number | null): Discussion | null => {
    const note_ids = notesOfDiscussion(state.discussions, discussion)
      .filter((note) => canReadNote(state, viewer, noteable, note))
      .map((note) => note.id);
    if (note_ids.length === discussion.note_ids.length) return discussion;
    return note_ids.length === 0 ? null : { ...discussion, note_ids };
  };

  const createdNoteId = (events: readonly { type: string; data: unknown }[]): number => {
    const event = events[0]!;
    return (event.data as { note: { id: number } }).note.id;
  };

  const positionOf = (raw: Record<string, unknown>): Position => ({
    base_sha: (raw['base_sha'] as string | null) ?? null,
    start_sha: (raw['start_sha'] as string | null) ?? null,
    head_sha: (raw['head_sha'] as string | null) ?? null,
    old_path: (raw['old_path'] as string | null | undefined) ?? null,
    new_path: (raw['new_path'] as string | null | undefined) ?? null,
    position_type: raw['position_type'] === 'image' ? 'image' : 'text',
    ...(raw['position_type'] === 'image'
      ? { width: (raw['width'] as number | undefined) ?? null, height: (raw['height'] as number | undefined) ?? null, x: (raw['x'] as number | undefined) ?? null, y: (raw['y'] as number | undefined) ?? null }
      : { old_line: (raw['old_line'] as number | undefined) ?? null, new_line: (raw['new_line'] as number | undefined) ?? null, ...(raw['line_range'] ? { line_range: raw['line_range'] } : {}) }),
  });

  const routesFor = ({ kind, base, notes }: NoteableRoute): AnyRouteDef[] => {
    const defs: AnyRouteDef[] = [
      route({
        method: 'GET',
        path: `${base}/discussions`,
        params: pageParams,
        handler: async (ctx) => {
          const found = await findNoteableOf(kind, ctx);
          if (E.isLeft(found)) return found.left;
          const state = deps.app.state;
          const key = found.right.noteable.key;
          const view = presentContext(deps, ctx, state);
          // The index pages threads in the order they started: a page costs the page, the total is a counter. As the
          // platform, the page is cut first and what the caller may not read is left out of it afterwards.
          const viewer = viewerId(ctx);
          const source: OffsetSource<Discussion> = {
            count: () => threadsOf(state.discussions, key)?.thread_count ?? 0,
            slice: (offset, limit) =>
              discussionsPage(state.discussions, key, offset, limit)
                .map((discussion) => visibleThread(state, found.right.noteable, discussion, viewer))
                .filter((discussion): discussion is Discussion => discussion !== null),
          };
          return paginate(ctx, source, { map: (discussion) => discussionEntity(discussion, view) });
        },
      }),
      route({
        method: 'GET',
        path: `${base}/discussions/:discussion_id`,
        handler: async (ctx) => {
          const found = await findNoteableOf(kind, ctx);
          if (E.isLeft(found)) return found.left;
          const state = deps.app.state;
          const discussion = findDiscussionOf(state.discussions, found.right.noteable.key, String(ctx.routeParams['discussion_id']));
          const visible = discussion ? visibleThread(state, found.right.noteable, discussion, viewerId(ctx)) : null;
          if (!visible) return notFound('Discussion');
          return ok(discussionEntity(visible, presentContext(deps, ctx, state)));
        },
      }),
      route({
        method: 'POST',
        path: `${base}/discussions`,
        params: startParams,
        handler: async (ctx) => {
          const found = await findNoteableOf(kind, ctx);
          if (E.isLeft(found)) return found.left;
          const { params } = ctx;
          let diff: DiffFact | undefined;
          if (params.position) {
            const position = positionOf(params.position as Record<string, unknown>);
            const projectId = found.right.noteable.project_id;
            diff = projectId !== null && (kind === 'MergeRequest' || kind === 'Commit') ? await diffFact(deps.repositories.open(projectId), position) : { position, line_code: null };
            if (projectId !== null && found.right.ref.kind === 'Commit') diff = { ...diff, commit_diff_refs: await commitDiffRefs(projectId, found.right.ref.sha) };
          }
          const result = await run(ctx, {
            type: 'StartDiscussion',
            noteable: found.right.ref,
            body: params.body ?? '',
            ...(params.created_at ? { created_at: isoOrNull(params.created_at) ?? undefined } : {}),
            ...(diff ? { diff } : {}),
            ...(params.commit_id ? { commit_id: params.commit_id } : {}),
          } as DiscussionCommand);
          if (E.isLeft(result)) return result.left;
          const discussionId = (result.right.events[0]!.data as { discussion_id: string }).discussion_id;
          const discussion = findDiscussionOf(result.right.state.discussions, found.right.noteable.key, discussionId)!;
          return created(discussionEntity(discussion, presentContext(deps, ctx, result.right.state)));
        },
      }),
      route({
        method: 'GET',
        path: `${base}/discussions/:discussion_id/notes`,
        handler: async (ctx) => {
          const found = await findNoteableOf(kind, ctx);
          if (E.isLeft(found)) return found.left;
          const state = deps.app.state;
          const list = threadNotes(state, found.right.noteable, String(ctx.routeParams['discussion_id']), viewerId(ctx));
          if (list.length === 0) return notFound('Notes');
          const view = presentContext(deps, ctx, state);
          return ok(list.map((note) => noteEntity(note, view)));
        },
      }),
      route({
        method: 'POST',
        path: `${base}/discussions/:discussion_id/notes`,
        params: replyParams,
        handler: async (ctx) => {
          const found = await findNoteableOf(kind, ctx);
          if (E.isLeft(found)) return found.left;
          const result = await run(ctx, {
            type: 'AddNote',
            noteable: found.right.ref,
            discussion_id: String(ctx.routeParams['discussion_id']),
            body: ctx.params.body ?? '',
            ...(ctx.params.created_at && isoOrNull(ctx.params.created_at) ? { created_at: isoOrNull(ctx.params.created_at)! } : {}),
          });
          if (E.isLeft(result)) return result.left;
          const note = findNoteOf(result.right.state.discussions, found.right.noteable.key, createdNoteId(result.right.events))!;
          return created(noteEntity(note, presentContext(deps, ctx, result.right.state)));
        },
      }),
      route({
        method: 'GET',
        path: `${base}/discussions/:discussion_id/notes/:note_id`,
        params: noteIdParams,
        handler: async (ctx) => {
          const found = await findNoteableOf(kind, ctx);
          if (E.isLeft(found)) return found.left;
          return getNote(ctx, found.right);
        },
      }),
      route({
        method: 'PUT',
        path: `${base}/discussions/:discussion_id/notes/:note_id`,
        params: extend(noteIdParams, editNoteParams),
        handler: async (ctx) => {
          const found = await findNoteableOf(kind, ctx);
          if (E.isLeft(found)) return found.left;
          const noteId = integer(ctx.routeParams['note_id']);
          const command: DiscussionCommand =
            ctx.params.body !== undefined && ctx.params.body !== null
              ? { type: 'EditNote', noteable: found.right.ref, note_id: noteId, body: ctx.params.body }
              : { type: 'ResolveNote', noteable: found.right.ref, note_id: noteId, resolved: ctx.params.resolved === true };
          const result = await run(ctx, command);
          if (E.isLeft(result)) return result.left;
          const note = findNoteOf(result.right.state.discussions, found.right.noteable.key, noteId)!;
          return ok(noteEntity(note, presentContext(deps, ctx, result.right.state)));
        },
      }),
      route({
        method: 'DELETE',
        path: `${base}/discussions/:discussion_id/notes/:note_id`,
        params: noteIdParams,
        handler: async (ctx) => {
          const found = await findNoteableOf(kind, ctx);
          if (E.isLeft(found)) return found.left;
          return deleteNote(ctx, found.right);
        },
      }),
    ];
    if (kind === 'MergeRequest') {
      defs.push(
        route({
          method: 'PUT',
          path: `${base}/discussions/:discussion_id`,
          params: resolveParams,
          handler: async (ctx) => {
            const found = await findNoteableOf(kind, ctx);
            if (E.isLeft(found)) return found.left;
            const discussionId = String(ctx.routeParams['discussion_id']);
            const result = await run(ctx, { type: 'ResolveDiscussion', noteable: found.right.ref, discussion_id: discussionId, resolved: ctx.params.resolved === true });
            if (E.isLeft(result)) return result.left;
            const discussion = findDiscussionOf(result.right.state.discussions, found.right.noteable.key, discussionId)!;
            return ok(discussionEntity(discussion, presentContext(deps, ctx, result.right.state)));
          },
        }),
      );
    }
    if (notes) defs.push(...notesRoutes(kind, base));
    return defs;
  };

  const getNote = (ctx: Ctx, found: Found) => {
    const state = deps.app.state;
    const note = findNoteOf(state.discussions, found.noteable.key, integer(ctx.routeParams['note_id']));
    if (!note) return notFound(undefined, '404 Not found');
    // `get_note`: a note the caller may not read (`read_note`) is "404 Note Not Found".
    if (!canReadNote(state, viewerId(ctx), found.noteable, note)) return notFound('Note');
    return ok(noteEntity(note, presentContext(deps, ctx, state)));
  };

  const deleteNote = async (ctx: Ctx, found: Found) => {
    const noteId = integer(ctx.routeParams['note_id']);
    const note = findNoteOf(deps.app.state.discussions, found.noteable.key, noteId);
    if (note) checkUnmodifiedSince(ctx.request.headers, note.updated_at);
    const result = await run(ctx, { type: 'DeleteNote', noteable: found.ref, note_id: noteId });
    return E.isLeft(result) ? result.left : noContent();
  };

  /** The flat notes API (lib/api/notes.rb) over the same threads. */
  const notesRoutes = (kind: Kind, base: string): AnyRouteDef[] => [
    route({
      method: 'GET',
      path: `${base}/notes`,
      params: flatNotesParams.list,
      handler: async (ctx) => {
        const found = await findNoteableOf(kind, ctx);
        if (E.isLeft(found)) return found.left;
        const state = deps.app.state;
        const { params } = ctx;
        const filter = params.activity_filter;
        const list = notesOfNoteable(state.discussions, found.right.noteable.key).filter((note) => (filter === 'only_comments' ? !note.system : filter === 'only_activity' ? note.system : true));
        const key = params.order_by === 'updated_at' ? 'updated_at' : 'created_at';
        list.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id - b.id));
        if (params.sort !== 'asc') list.reverse();
        const view = presentContext(deps, ctx, state);
        // Paginated first, then `notes.select { |note| note.readable_by?(current_user) }`.
        const viewer = viewerId(ctx);
        const source: OffsetSource<Note> = { count: () => list.length, slice: (offset, limit) => list.slice(offset, offset + limit).filter((note) => canReadNote(state, viewer, found.right.noteable, note)) };
        return paginate(ctx, source, { map: (note) => noteEntity(note, view) });
      },
    }),
    route({
      method: 'GET',
      path: `${base}/notes/:note_id`,
      params: flatNotesParams.one,
      handler: async (ctx) => {
        const found = await findNoteableOf(kind, ctx);
        if (E.isLeft(found)) return found.left;
        return getNote(ctx, found.right);
      },
    }),
    route({
      method: 'POST',
      path: `${base}/notes`,
      params: flatNotesParams.create,
      handler: async (ctx) => {
        const found = await findNoteableOf(kind, ctx);
        if (E.isLeft(found)) return found.left;
        const createdAt = ctx.params.created_at ? isoOrNull(ctx.params.created_at) : null;
        const result = await run(ctx, {
          type: 'StartDiscussion',
          noteable: found.right.ref,
          body: ctx.params.body ?? '',
          individual: true,
          ...(createdAt ? { created_at: createdAt } : {}),
          ...(ctx.params.confidential === true ? { confidential: true } : {}),
        });
        if (E.isLeft(result)) return result.left;
        const note = findNoteOf(result.right.state.discussions, found.right.noteable.key, createdNoteId(result.right.events))!;
        return created(noteEntity(note, presentContext(deps, ctx, result.right.state)));
      },
    }),
    route({
      method: 'PUT',
      path: `${base}/notes/:note_id`,
      params: flatNotesParams.update,
      handler: async (ctx) => {
        const found = await findNoteableOf(kind, ctx);
        if (E.isLeft(found)) return found.left;
        const noteId = integer(ctx.routeParams['note_id']);
        // `update_note`: `{ note: params[:body], confidential: params[:confidential] }.compact`.
        const { body, confidential } = ctx.params;
        const result = await run(ctx, {
          type: 'EditNote',
          noteable: found.right.ref,
          note_id: noteId,
          ...(body !== undefined && body !== null ? { body } : {}),
          ...(confidential !== undefined && confidential !== null ? { confidential } : {}),
        });
        if (E.isLeft(result)) return result.left;
        return ok(noteEntity(findNoteOf(result.right.state.discussions, found.right.noteable.key, noteId)!, presentContext(deps, ctx, result.right.state)));
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/notes/:note_id`,
      params: flatNotesParams.one,
      handler: async (ctx) => {
        const found = await findNoteableOf(kind, ctx);
        if (E.isLeft(found)) return found.left;
        return deleteNote(ctx, found.right);
      },
    }),
  ];

  return NOTEABLE_ROUTES.flatMap(routesFor);
};

/** A `created_at` the platform would parse, as ISO-8601 UTC (else ignored). */
const isoOrNull = (value: string): string | null => {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
};
