/**
 * Repository files, blobs, archives and tree (lib/api/files.rb, repositories.rb, 14.7): get a file (base64
 * content and `X-Gitlab-*` headers; HEAD for the headers alone), its raw content, create, update and delete it
 * (one commit each), a blob by id (and raw), an archive, and list a tree. Reads need `download_code`; writes
 * `push_code` (403), then push access to the branch ("You are not allowed to push into this branch", 400) and
 * the commit service's checks (400).
 */
import { createHash } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { canPushToBranch, canRepository, defaultBranchOf, findRepository, forbidden, type Project } from '@forgefold/core';
import type { BlameRange, Blob, CommitAction } from '@forgefold/git';
import { ApiError, created, noContent, ok, paginateLoaded, route, withStatus, type AnyRouteDef } from '../../http/index.js';
import { archiveParams, rawParams, showParams, treeParams, extendedFileParams, deleteFileParams } from './params.js';
import { viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { treeEntity } from '../repositories/entities.js';
import { checkFilePath, gitFailure, must, projectOf, requireRepositoryAbility } from '../repositories/shared.js';

const blobData = (blob: Blob, ref: string) => ({
  file_name: blob.file_name,
  file_path: blob.file_path,
  size: blob.size,
  encoding: 'base64',
  content_sha256: createHash('sha256').update(blob.content).digest('hex'),
  ref,
  blob_id: blob.blob_id,
  commit_id: blob.commit_id,
  last_commit_id: blob.last_commit_id,
});

/** `Entities::BlameRange` with its `BlameRangeCommit`. */
const blameRangeEntity = (range: BlameRange) => ({
  commit: {
    id: range.commit.id,
    parent_ids: range.commit.parent_ids,
    message: range.commit.message,
    authored_date: range.commit.authored_date,
    author_name: range.commit.author_name,
    author_email: range.commit.author_email,
    committed_date: range.commit.committed_date,
    committer_name: range.commit.committer_name,
    committer_email: range.commit.committer_email,
  },
  lines: range.lines,
});

/** `%XX` for every UTF-8 byte of the characters `keep` does not match. */
const percentEscape = (text: string, keep: RegExp): string =>
  [...text].map((char) => (keep.test(char) ? char : [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''))).join('');

/**
 * The i18n gem's default approximations, one for each character from U+00C0 to U+017E (`÷`, U+00F7, has none):
 * the table of i18n 1.8.11, the release 14.7 bundled (`ẞ` came later).
 */
const LATIN_APPROXIMATIONS = (
  'A|A|A|A|A|A|AE|C|E|E|E|E|I|I|I|I|D|N|O|O|O|O|O|x|O|U|U|U|U|Y|Th|ss|a|a|a|a|a|a|ae|c|e|e|e|e|i|i|i|i|d|n|o|o|o|o|o||o|u|u|u|u|y|th|y|' +
  'A|a|A|a|A|a|C|c|C|c|C|c|C|c|D|d|D|d|E|e|E|e|E|e|E|e|E|e|G|g|G|g|G|g|G|g|H|h|H|h|I|i|I|i|I|i|I|i|I|i|IJ|ij|J|j|K|k|k|L|l|L|l|L|l|L|l|' +
  "L|l|N|n|N|n|N|n|'n|NG|ng|O|o|O|o|O|o|OE|oe|R|r|R|r|R|r|S|s|S|s|S|s|S|s|T|t|T|t|T|t|U|u|U|u|U|u|U|u|U|u|U|u|W|w|Y|y|Y|Z|z|Z|z|Z|z"
).split('|');

/** `I18n.transliterate` with no locale rule: each non-ASCII character (code point) its approximation, else `?`. */
const transliterate = (text: string): string =>
  text.replace(/[^\x00-\x7f]/gu, (char) => {
    const code = char.codePointAt(0)!;
    return (code >= 0xc0 && code <= 0x17e ? LATIN_APPROXIMATIONS[code - 0xc0] : '') || '?';
  });

/**
 * `ActionDispatch::Http::ContentDisposition.format(disposition:, filename:)` (Rails 6.1), as the API's
 * `send_git_blob` sets it: the traditional `filename` (transliterated, then escaped) and the RFC 5987 `filename*`.
 */
const contentDisposition = (disposition: string, filename: string): string =>
  `${disposition}; filename="${percentEscape(transliterate(filename), /[ A-Za-z0-9!#$+.^_`|~-]/)}"; filename*=UTF-8''${percentEscape(filename, /[A-Za-z0-9!#$&+.^_`|~-]/)}`;

/** What Workhorse's detection makes of raw content: text, or bytes when a NUL shows in the first 8,000. */
const rawContentType = (content: Buffer): string => (content.subarray(0, 8000).includes(0) ? 'application/octet-stream' : 'text/plain; charset=utf-8');

/** `set_http_headers`: each field as `X-Gitlab-<Titleized-Name>`. */
const gitlabHeaders = (data: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(data).map(([key, value]) => [`X-Gitlab-${key.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('-')}`, String(value)]),
  );

/** The suffixes `Gitlab::PathRegex.archive_formats_regex` accepts after `archive`. */
const ARCHIVE_SUFFIXES = ['zip', 'tar', 'tar.gz', 'tgz', 'gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'] as const;

/** `archive_file_path`'s extension for a requested format (lower-cased first); anything else is tar.gz. */
const archiveFormat = (requested: string | null | undefined): 'tar' | 'tar.gz' | 'tar.bz2' | 'zip' => {
  const format = (requested ?? 'tar.gz').toLowerCase();
  if (['tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'].includes(format)) return 'tar.bz2';
  return format === 'tar' || format === 'zip' ? format : 'tar.gz';
};

export const fileRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const download = requireRepositoryAbility(deps, 'download_code');
  /** The blob `:sha` of the route's project (`download_code`). */
  const blobOfRoute = (ctx: Ctx) => must(deps.repositories.open(projectOf(deps, ctx, 'download_code').id).rawBlob(String(ctx.routeParams['sha'])));

  const readBlob = async (ctx: Ctx, project: Project, ref: string) => {
    const path = checkFilePath(String(ctx.routeParams['file_path']));
    const git = deps.repositories.open(project.id);
    // A ref that names no commit is the 404; any other failure is the server's, not a missing commit.
    const commit = await must(git.findCommit(ref), '404 Commit Not Found');
    return must(git.blob({ ref: commit.id, path }), '404 File Not Found');
  };

  /** One commit of one action through the commit service, as `Files::*Service`. */
  const write = async (ctx: Ctx, action: CommitAction['action'], params: { branch?: string | null; commit_message?: string | null; content?: string | null; encoding?: string | null; author_email?: string | null; author_name?: string | null; start_branch?: string | null; execute_filemode?: boolean | null; last_commit_id?: string | null }) => {
    const project = projectOf(deps, ctx, 'download_code');
    const state = deps.app.state;
    if (!canRepository(state, viewerId(ctx), project, 'push_code')) throw ApiError.domain(forbidden());
    const path = checkFilePath(String(ctx.routeParams['file_path']));
    const branch = params.branch ?? '';
    const repository = findRepository(state.repositories, project.id)!;
    if (!canPushToBranch(state, viewerId(ctx), project, repository, branch)) throw ApiError.message(400, 'You are not allowed to push into this branch');
    const author = deps.repositories.signatureOf(viewerId(ctx), { name: params.author_name, email: params.author_email });
    const result = await deps.repositories.open(project.id).commitFiles(
      {
        branch,
        commit_message: params.commit_message ?? '',
        actions: [
          {
            action,
            file_path: path,
            ...(action !== 'delete' ? { content: params.content ?? '', encoding: params.encoding === 'base64' ? 'base64' : 'text' } : {}),
            ...(action === 'create' && params.execute_filemode !== undefined && params.execute_filemode !== null ? { execute_filemode: params.execute_filemode } : {}),
            ...(action === 'update' && params.last_commit_id ? { last_commit_id: params.last_commit_id } : {}),
          },
        ],
        ...(params.start_branch ? { start_branch: params.start_branch } : {}),
        author,
        committer: deps.repositories.signatureOf(viewerId(ctx)),
      },
      deps.repositories.recorder(project.id, ctx.actor),
    );
    if (E.isLeft(result)) {
      // `Files::UpdateService` refuses a stale `last_commit_id` with its own text (`FileChangedError`), not the
      // commits API's "The file has changed since you started editing it: <path>".
      const stale = action === 'update' && result.left._tag === 'CommitRefused' && result.left.message === `The file has changed since you started editing it: ${path}`;
      throw stale ? ApiError.message(400, 'You are attempting to update a file that has changed since you started editing it.') : gitFailure(result.left);
    }
    return { file_path: path, branch };
  };

  return [
    route({
      method: 'GET',
      path: '/projects/:id/repository/files/:file_path',
      auth: 'optional',
      before: download,
      params: showParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const ref = ctx.params.ref ?? '';
        const blob = await readBlob(ctx, project, ref);
        const data = blobData(blob, ref);
        return ok({ ...data, content: blob.content.toString('base64') }, { headers: gitlabHeaders(data) });
      },
    }),
    // `GET …/files/:file_path/blame` (14.7: no `range`): the file's headers, then `Entities::BlameRange` for each
    // run of consecutive lines of one commit.
    route({
      method: 'GET',
      path: '/projects/:id/repository/files/:file_path/blame',
      auth: 'optional',
      before: download,
      params: showParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const ref = ctx.params.ref ?? '';
        const blob = await readBlob(ctx, project, ref);
        const ranges = await must(deps.repositories.open(project.id).blame({ ref: blob.commit_id, path: blob.file_path }), '404 File Not Found');
        return ok(ranges.map(blameRangeEntity), { headers: gitlabHeaders(blobData(blob, ref)) });
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/files/:file_path/raw',
      auth: 'optional',
      before: download,
      params: rawParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const repository = findRepository(deps.app.state.repositories, project.id);
        const ref = ctx.params.ref || (repository ? defaultBranchOf(repository) : null) || 'HEAD';
        const blob = await readBlob(ctx, project, ref);
        return {
          ...withStatus(200, undefined, { headers: { ...gitlabHeaders(blobData(blob, ref)), 'Content-Disposition': contentDisposition('inline', blob.file_name) }, contentType: rawContentType(blob.content) }),
          rawBody: blob.content,
        };
      },
    }),
    route({
      method: 'POST',
      path: '/projects/:id/repository/files/:file_path',
      auth: 'optional',
      before: download,
      params: extendedFileParams,
      handler: async (ctx) => created(await write(ctx, 'create', ctx.params)),
    }),
    route({
      method: 'PUT',
      path: '/projects/:id/repository/files/:file_path',
      auth: 'optional',
      before: download,
      params: extendedFileParams,
      handler: async (ctx) => ok(await write(ctx, 'update', ctx.params)),
    }),
    route({
      method: 'DELETE',
      path: '/projects/:id/repository/files/:file_path',
      auth: 'optional',
      before: download,
      params: deleteFileParams,
      handler: async (ctx) => {
        await write(ctx, 'delete', ctx.params);
        return noContent();
      },
    }),
    // Blobs by id (lib/api/repositories.rb): what a tree listing's `id` leads to.
    route({
      method: 'GET',
      path: '/projects/:id/repository/blobs/:sha',
      auth: 'optional',
      before: download,
      handler: async (ctx) => {
        const blob = await blobOfRoute(ctx);
        return ok({ size: blob.size, encoding: 'base64', content: blob.content.toString('base64'), sha: blob.id });
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/blobs/:sha/raw',
      auth: 'optional',
      before: download,
      handler: async (ctx) => {
        const blob = await blobOfRoute(ctx);
        return { ...withStatus(200, undefined, { headers: { 'Content-Disposition': 'inline' }, contentType: rawContentType(blob.content) }), rawBody: blob.content };
      },
    }),
    // `GET …/repository/archive[.format]` (send_git_archive with append_sha): the archive of `sha` (a ref; the
    // default branch when absent), named `<project path>-<ref>-<commit>[-<path>]`, which is also the top
    // directory inside; a ref that names no commit is "404 File Not Found". Held in memory, never cached.
    ...[undefined, ...ARCHIVE_SUFFIXES].map((suffix) =>
      route({
        method: 'GET',
        path: `/projects/:id/repository/archive${suffix === undefined ? '' : `.${suffix}`}`,
        auth: 'optional',
        cache: false,
        before: download,
        params: archiveParams,
        handler: async (ctx) => {
          const project = projectOf(deps, ctx, 'download_code');
          const repository = findRepository(deps.app.state.repositories, project.id);
          const ref = ctx.params.sha ?? (repository ? defaultBranchOf(repository) : null) ?? 'master';
          const format = archiveFormat(suffix ?? ctx.params.format);
          const git = deps.repositories.open(project.id);
          const commit = await must(git.findCommit(ref), '404 File Not Found');
          const path = ctx.params.path ?? undefined;
          const prefix = [project.path, ref.replace(/\//g, '-'), commit.id, ...(path ? [path.replace(/\//g, '-')] : [])].join('-');
          const archive = await must(git.archive({ ref: commit.id, format, prefix, ...(path ? { path } : {}) }), '404 File Not Found');
          return {
            ...withStatus(200, undefined, {
              // Workhorse's `attachment; filename="%s"`: nothing escaped, and Go writes a line break as a space.
              headers: { 'Content-Disposition': `attachment; filename="${`${prefix}.${format}`.replace(/[\r\n]/g, ' ')}"`, 'Content-Transfer-Encoding': 'binary' },
              contentType: format === 'zip' ? 'application/zip' : 'application/octet-stream',
            }),
            rawBody: archive.content,
          };
        },
      }),
    ),
    route({
      method: 'GET',
      path: '/projects/:id/repository/tree',
      auth: 'optional',
      before: download,
      params: treeParams,
      handler: (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const repository = findRepository(deps.app.state.repositories, project.id);
        const ref = ctx.params.ref || (repository ? defaultBranchOf(repository) : null) || 'master';
        const git = deps.repositories.open(project.id);
        return paginateLoaded(
          ctx,
          async (offset, limit) => {
            const page = await git.tree({ ref, ...(ctx.params.path ? { path: ctx.params.path } : {}), recursive: ctx.params.recursive, offset, limit });
            // `not_found!('Tree')` only for a ref that names no commit; a path that is no directory there lists
            // nothing (14.7's Gitaly answered no entries; the 404 for a path came with 16.5).
            if (E.isLeft(page) && page.left._tag === 'RevisionNotFound') throw ApiError.message(404, '404 Tree Not Found');
            if (E.isLeft(page) && page.left._tag === 'PathNotFound') return { items: [], total: 0 };
            if (E.isLeft(page)) throw new Error(page.left.message);
            return page.right;
          },
          (entries) => entries.map(treeEntity),
        );
      },
    }),
  ];
};
