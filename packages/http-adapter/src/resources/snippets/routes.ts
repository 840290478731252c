/**
 * Project snippets (lib/api/project_snippets.rb, 14.7): create (`content` + `file_name`, or `files[]`), list, get,
 * raw content (the first file, or one file at the snippet's branch), update (`content`/`file_name` on a one-file
 * snippet, or `files[]` actions), delete. The files are kept in the log (the platform keeps them in a repository per
 * snippet), at one branch: no history.
 */
import * as E from 'fp-ts/lib/Either.js';
import { canCreateSnippet, canDestroySnippet, canReadSnippet, canUpdateSnippet, findSnippet, forbidden, isRubyBlank, notFound, snippetsOf, unauthorized, type DomainError, type Project, type Snippet, type SnippetFileInput, type State } from '@forgefold/core';
import { ApiError, checkUnmodifiedSince, created, noContent, ok, route, type AnyRouteDef, type HandlerContext } from '../../http/index.js';
import { checkFilePath } from '../repositories/shared.js';
import { commandRoute, listRoute, projectOfRoute } from '../../app/routes.js';
import { presentContext, viewerId, type ApiDeps } from '../../app/deps.js';
import { createParams, snippetIdParams, updateParams } from './params.js';
import { snippetEntity, SNIPPET_REF } from './entities.js';

/** `snippets_for_current_user.find_by(id:)`: a readable snippet, else "404 Snippet Not Found" (`find` says "404 Not found"). */
const snippetOfRoute =
  (message?: string) =>
  (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, { project: Project; snippet: Snippet }> => {
    const project = projectOfRoute(ctx, state);
    if (E.isLeft(project)) return project;
    const id = Number(ctx.routeParams['snippet_id']);
    const snippet = Number.isSafeInteger(id) ? findSnippet(state.snippets, project.right.id, id) : undefined;
    if (!snippet || !canReadSnippet(state, viewerId(ctx), project.right, snippet)) return E.left(message ? notFound(undefined, message) : notFound('Snippet'));
    return E.right({ project: project.right, snippet });
  };

/** The endpoint's `authenticate!` before its lookup (after the project's `before` hook and the parameters). */
const signedInSnippet = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, { project: Project; snippet: Snippet }> =>
  viewerId(ctx) === null ? E.left(unauthorized) : snippetOfRoute()(ctx, state);

type FileAction = { action: string | null; content?: string | null | undefined; file_path?: string | null | undefined; previous_path?: string | null | undefined } | null;

const present = (value: string | null | undefined): value is string => typeof value === 'string' && !isRubyBlank(value);

/**
 * `SnippetInputAction`'s validations: a file path; content to create or update; an update's `previous_path`, if
 * any, the same as its path; a move's `previous_path`.
 */
const validAction = (action: NonNullable<FileAction>): boolean =>
  present(action.file_path) &&
  (action.action === 'create' || action.action === 'update' ? present(action.content) : true) &&
  (action.action === 'update' ? !present(action.previous_path) || action.previous_path === action.file_path : true) &&
  (action.action === 'move' ? present(action.previous_path) : true);

/**
 * `SnippetInputActionCollection`: the new set of files after the actions. Invalid actions are the service's 422
 * (`invalid_params_error`, `{"message":{"error":"Snippet actions have invalid data"}}`); an action on a file that is
 * not there stays a 400.
 */
const applyActions = (current: readonly SnippetFileInput[], actions: readonly FileAction[]): SnippetFileInput[] => {
  const files = current.map((file) => ({ ...file }));
  if (actions.some((action) => action !== null && !validAction(action))) throw ApiError.message(422, { error: 'Snippet actions have invalid data' });
  for (const action of actions) {
    if (!action) continue;
    const path = action.file_path ?? action.previous_path ?? '';
    const index = files.findIndex((file) => file.file_path === (action.previous_path ?? action.file_path));
    switch (action.action) {
      case 'create':
        if (!action.file_path || action.content === undefined || action.content === null) throw ApiError.message(400, 'Snippet actions have invalid data');
        files.push({ file_path: action.file_path, content: action.content });
        break;
      case 'update':
      case 'move':
        if (index < 0) throw ApiError.message(400, 'Snippet actions have invalid data');
        files[index] = { file_path: path, content: action.content ?? files[index]!.content };
        break;
      case 'delete':
        if (index < 0) throw ApiError.message(400, 'Snippet actions have invalid data');
        files.splice(index, 1);
        break;
    }
  }
  return files;
};

const current = (snippet: Snippet): SnippetFileInput[] => snippet.files.map((file) => ({ file_path: file.path, content: file.content }));

/** `render_api_error!({ error: service_response.message }, 403)`: a refused visibility level. */
const serviceError = (error: DomainError): DomainError => {
  if (error._tag === 'Forbidden' && error.message !== undefined) throw ApiError.message(403, { error: error.message });
  return error;
};

export const snippetRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  /** `before { check_snippets_enabled }`: `user_project` ("404 Project Not Found") before the parameters are checked. */
  const projectFirst = (ctx: HandlerContext<unknown>): DomainError | undefined => {
    const project = projectOfRoute(ctx, deps.app.state);
    return E.isLeft(project) ? project.left : undefined;
  };
  return [
    listRoute(deps, {
      path: '/projects/:id/snippets',
      auth: 'optional',
      find: projectOfRoute,
      // `check_snippets_enabled` finds the project first, then the list calls `authenticate!`.
      authorize: (ctx) => (viewerId(ctx) === null ? unauthorized : null),
      rows: (ctx, state, project) => snippetsOf(state.snippets, project.id).filter((snippet) => canReadSnippet(state, viewerId(ctx), project, snippet)),
      present: (snippet, view, project) => snippetEntity(snippet, project, view),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/snippets/:snippet_id',
      auth: 'optional',
      before: projectFirst,
      params: snippetIdParams,
      handler: (ctx) => {
        const found = snippetOfRoute('404 Not found')(ctx, deps.app.state);
        if (E.isLeft(found)) return found.left;
        return ok(snippetEntity(found.right.snippet, found.right.project, presentContext(deps, ctx)));
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/snippets/:snippet_id/raw',
      auth: 'optional',
      before: projectFirst,
      params: snippetIdParams,
      handler: (ctx) => {
        const found = snippetOfRoute()(ctx, deps.app.state);
        if (E.isLeft(found)) return found.left;
        return { ...ok(null), rawBody: Buffer.from(found.right.snippet.files[0]?.content ?? '', 'utf8'), contentType: 'text/plain; charset=utf-8' };
      },
    }),
    // `GET …/files/:ref/:file_path/raw` (`file_content_for`): the snippet's one branch holds its files; another ref
    // is "404 Reference Not Found", a path it does not hold "404 File Not Found".
    route({
      method: 'GET',
      path: '/projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw',
      auth: 'optional',
      before: projectFirst,
      // `use :raw_file_params` only: `snippet_id` is not declared, so any text is looked up (and not found).
      handler: (ctx) => {
        const path = String(ctx.routeParams['file_path']);
        checkFilePath(path);
        const found = snippetOfRoute()(ctx, deps.app.state);
        if (E.isLeft(found)) return found.left;
        const ref = String(ctx.routeParams['ref']);
        if (ref !== SNIPPET_REF && ref !== 'HEAD' && ref !== `refs/heads/${SNIPPET_REF}`) return notFound('Reference');
        const file = found.right.snippet.files.find((each) => each.path === path);
        if (!file) return notFound('File');
        return { ...ok(null), rawBody: Buffer.from(file.content, 'utf8'), contentType: 'text/plain; charset=utf-8' };
      },
    }),
    commandRoute(deps, {
      method: 'POST',
      path: '/projects/:id/snippets',
      // `before { check_snippets_enabled }` finds the project, the parameters are checked, then the endpoint's
      // `authenticate!`: an anonymous caller gets 404 for a project it may not see, 401 otherwise.
      auth: 'optional',
      before: projectFirst,
      params: createParams,
      find: (ctx, state) => {
        // `given :content do requires :file_name end`: a parameter error.
        if (typeof ctx.params.content === 'string' && ctx.params.content !== '' && ctx.params.file_name === undefined) throw ApiError.error(400, 'file_name is missing');
        if (viewerId(ctx) === null) return E.left(unauthorized);
        return projectOfRoute(ctx, state);
      },
      authorize: (ctx, state, project) => (canCreateSnippet(state, viewerId(ctx), project) ? null : forbidden()),
      command: (ctx, project) => {
        const { params } = ctx;
        const files = params.files
          ? params.files.filter((file) => file !== null).map((file) => ({ file_path: file.file_path ?? '', content: file.content ?? '' }))
          : [{ file_path: params.file_name ?? '', content: params.content ?? '' }];
        return {
          type: 'CreateSnippet',
          project_id: project.id,
          title: params.title ?? '',
          ...(params.description ? { description: params.description } : {}),
          visibility: params.visibility,
          files,
        };
      },
      error: serviceError,
      present: (done, ctx, project) => {
        const id = (done.events.find((event) => event.type === 'SnippetCreated')!.data as { id: number }).id;
        return created(snippetEntity(findSnippet(done.state.snippets, project.id, id)!, project, presentContext(deps, ctx, done.state)));
      },
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: '/projects/:id/snippets/:snippet_id',
      auth: 'optional',
      before: projectFirst,
      params: updateParams,
      find: signedInSnippet,
      authorize: (ctx, state, { project, snippet }) => (canUpdateSnippet(state, viewerId(ctx), project, snippet) ? null : forbidden()),
      command: (ctx, { project, snippet }) => {
        const { params } = ctx;
        let files: SnippetFileInput[] | undefined;
        if (params.files) files = applyActions(current(snippet), params.files);
        else if (params.content !== undefined && params.content !== null || params.file_name) {
          // `content`/`file_name` edit a snippet of one file only.
          if (snippet.files.length > 1) throw ApiError.message(400, { error: 'To update Snippets with multiple files, you must use the `files` parameter' });
          const only = snippet.files[0];
          files = [{ file_path: params.file_name ?? only?.path ?? '', content: params.content ?? only?.content ?? '' }];
        }
        return {
          type: 'UpdateSnippet',
          project_id: project.id,
          id: snippet.id,
          ...(params.title ? { title: params.title } : {}),
          ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
          ...(params.visibility ? { visibility: params.visibility } : {}),
          ...(files ? { files } : {}),
        };
      },
      error: serviceError,
      present: (done, ctx, { project, snippet }) => ok(snippetEntity(findSnippet(done.state.snippets, project.id, snippet.id)!, project, presentContext(deps, ctx, done.state))),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: '/projects/:id/snippets/:snippet_id',
      auth: 'optional',
      before: projectFirst,
      params: snippetIdParams,
      find: signedInSnippet,
      authorize: (ctx, state, { project, snippet }) => (canDestroySnippet(state, viewerId(ctx), project, snippet) ? null : forbidden()),
      command: (ctx, { project, snippet }) => {
        checkUnmodifiedSince(ctx.request.headers, snippet.updated_at);
        return { type: 'DeleteSnippet', project_id: project.id, id: snippet.id };
      },
      present: () => noContent(),
    }),
  ];
};
