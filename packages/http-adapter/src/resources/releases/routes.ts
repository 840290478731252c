/**
 * Releases (lib/api/releases.rb, 14.7) and release links (lib/api/release/links.rb): list (`order_by`
 * released_at|created_at, `sort`), get, create (the tag made from `ref` when missing, as `Releases::CreateService`
 * does), update, delete (answers the deleted release); links CRUD under `/releases/:tag_name/assets/links`.
 * Every route needs `read_release` first (`authorize_read_releases!`).
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  milestonesRefusal,
  releaseSaveRefusal,
  canRelease,
  canRepository,
  findRelease,
  forbidden,
  forbiddenMessage,
  conflict,
  releasesOfProject,
  sortedLinks,
  unprocessable,
  RELEASE_MESSAGES,
  type DomainError,
  type Project,
  type Release,
  type State,
} from '@forgefold/core';
import type { Commit } from '@forgefold/git';
import { arraySource, created, ok, paginate, paginateLoaded, route, type AnyRouteDef, type HandlerContext } from '../../http/index.js';
import { commandRoute, projectOfRoute } from '../../app/routes.js';
import { presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { must } from '../repositories/shared.js';
import { releaseEntity, releaseLinkEntity } from './entities.js';
import { createParams, linkCreateParams, linkIdParams, linkListParams, linkUpdateParams, listParams, showParams, updateParams } from './params.js';

const RECORD_NOT_FOUND = '404 Not found';

/** `user_project` + `authorize_read_releases!`. */
const readableProject = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, Project> => {
  const project = projectOfRoute(ctx, state);
  if (E.isLeft(project)) return project;
  return canRelease(state, viewerId(ctx), project.right, 'read_release') ? project : E.left(forbidden());
};

const tagOf = (ctx: HandlerContext<unknown>): string => String(ctx.routeParams['tag_name']);

export const releaseRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  /** The commit a release points at (its recorded sha), read from git; null when git no longer has it. */
  const commitOf = async (project: Project, release: Release): Promise<Commit | null> => {
    if (release.sha === null) return null;
    const found = await deps.repositories.open(project.id).findCommit(release.sha);
    return E.isRight(found) ? found.right : null;
  };
  const present = async (ctx: Ctx, project: Project, release: Release, includeHtml?: boolean | null, state: State = deps.app.state) =>
    releaseEntity(release, project, presentContext(deps, ctx, state), { commit: await commitOf(project, release), includeHtmlDescription: includeHtml === true, now: deps.clock.now() });

  /** `find_by_tag!` for the links API: "404 Not found". */
  const linkRelease = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, { project: Project; release: Release }> => {
    const project = readableProject(ctx, state);
    if (E.isLeft(project)) return project;
    const release = findRelease(state.releases, project.right.id, tagOf(ctx));
    return release ? E.right({ project: project.right, release }) : E.left({ _tag: 'NotFound', message: RECORD_NOT_FOUND });
  };
  const linkOf = (release: Release, id: number) => release.links.find((link) => link.id === id);

  return [
    route({
      method: 'GET',
      path: '/projects/:id/releases',
      auth: 'optional',
      params: listParams,
      // `upcoming_release` turns false at `released_at`, with no event: never served from the response cache.
      cache: false,
      handler: (ctx) => {
        const state = deps.app.state;
        const found = readableProject(ctx, state);
        if (E.isLeft(found)) return found.left;
        const project = found.right;
        // `ReleasesFinder`: `sort_by_attribute("#{order_by}_#{sort}")`; equal times keep id order (the index's).
        const key = ctx.params.order_by === 'created_at' ? 'created_at' : 'released_at';
        const rows = releasesOfProject(state.releases, project.id).sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id - b.id));
        if (ctx.params.sort === 'desc') rows.reverse();
        return paginateLoaded(
          ctx,
          async (offset, limit) => ({ items: rows.slice(offset, offset + limit), total: rows.length }),
          (page) => Promise.all(page.map((release) => present(ctx, project, release, ctx.params.include_html_description, state))),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/releases/:tag_name',
      auth: 'optional',
      params: showParams,
      // `upcoming_release` turns false at `released_at`, with no event: never served from the response cache.
      cache: false,
      handler: async (ctx) => {
        const state = deps.app.state;
        const found = readableProject(ctx, state);
        if (E.isLeft(found)) return found.left;
        // `authorize_download_code!` before the lookup: a guest of a private project gets 403.
        if (!canRepository(state, viewerId(ctx), found.right, 'download_code')) return forbidden();
        const release = findRelease(state.releases, found.right.id, tagOf(ctx));
        if (!release) return { _tag: 'NotFound' };
        return ok(await present(ctx, found.right, release, ctx.params.include_html_description, state));
      },
    }),
    commandRoute(deps, {
      method: 'POST',
      path: '/projects/:id/releases',
      params: createParams,
      find: readableProject,
      // `authorize_create_release!`.
      authorize: (ctx, state, project) => (canRelease(state, viewerId(ctx), project, 'create_release') ? null : forbidden()),
      command: async (ctx, project) => {
        const state = deps.app.state;
        const { params } = ctx;
        const tag = params.tag_name ?? '';
        // The service's checks before any tag is made: the protected tag, the existing release.
        if (!canRelease(state, viewerId(ctx), project, 'create_release', tag)) return forbiddenMessage(RELEASE_MESSAGES.protected_tag);
        if (findRelease(state.releases, project.id, tag)) return conflict(RELEASE_MESSAGES.exists);
        const milestones = (params.milestones ?? []).filter((title): title is string => title !== null);
        const noMilestone = milestonesRefusal(milestones);
        if (noMilestone) return noMilestone;
        const links = (params.assets?.links ?? [])
          .filter((link): link is NonNullable<typeof link> => link !== null)
          .map((link) => ({ name: link.name ?? '', url: link.url ?? '', ...(typeof link.filepath === 'string' ? { filepath: link.filepath } : {}), ...(link.link_type ? { link_type: link.link_type } : {}) }));
        // The release's validation before the tag is made (the platform saves it after: a refusal there left the tag).
        const invalid = releaseSaveRefusal(links, params.description ?? undefined);
        if (invalid) return invalid;
        const git = deps.repositories.open(project.id);
        const found = await git.findTag(tag);
        let existing = E.isRight(found) ? found.right : null;
        if (existing === null) {
          // `ensure_tag`: a missing tag is created from `ref` (`Tags::CreateService`: its failures are 400).
          if (!params.ref) return unprocessable(RELEASE_MESSAGES.ref_missing);
          existing = (await must(git.createTag({ tag_name: tag, ref: params.ref }, deps.repositories.recorder(project.id, ctx.actor)))).tag;
        }
        return {
          type: 'CreateRelease',
          project_id: project.id,
          tag,
          ...(params.name !== undefined && params.name !== null ? { name: params.name } : {}),
          ...(params.description !== undefined && params.description !== null ? { description: params.description } : {}),
          ...(params.released_at ? { released_at: params.released_at } : {}),
          links,
          ...(milestones.length > 0 ? { milestones } : {}),
          sha: existing.commit?.id ?? null,
        };
      },
      present: async (done, ctx, project) => created(await present(ctx, project, findRelease(done.state.releases, project.id, ctx.params.tag_name ?? '')!, false, done.state)),
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: '/projects/:id/releases/:tag_name',
      params: updateParams,
      find: readableProject,
      command: (ctx, project) => ({
        type: 'UpdateRelease',
        project_id: project.id,
        tag: tagOf(ctx),
        ...(ctx.params.name !== undefined && ctx.params.name !== null ? { name: ctx.params.name } : {}),
        ...(ctx.params.description !== undefined && ctx.params.description !== null ? { description: ctx.params.description } : {}),
        ...(ctx.params.released_at ? { released_at: ctx.params.released_at } : {}),
        ...(ctx.params.milestones !== undefined && ctx.params.milestones !== null ? { milestones: ctx.params.milestones.filter((title): title is string => title !== null) } : {}),
      }),
      present: async (done, ctx, project) => ok(await present(ctx, project, findRelease(done.state.releases, project.id, tagOf(ctx))!, false, done.state)),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: '/projects/:id/releases/:tag_name',
      find: (ctx, state) => {
        const project = readableProject(ctx, state);
        if (E.isLeft(project)) return project;
        return E.right({ project: project.right, release: findRelease(state.releases, project.right.id, tagOf(ctx)) });
      },
      command: (ctx, { project }) => ({ type: 'DeleteRelease', project_id: project.id, tag: tagOf(ctx) }),
      // The deleted release, as it was (200).
      present: async (_done, ctx, { project, release }) => ok(await present(ctx, project, release!, false)),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/releases/:tag_name/assets/links',
      auth: 'optional',
      params: linkListParams,
      handler: (ctx) => {
        const found = linkRelease(ctx, deps.app.state);
        if (E.isLeft(found)) return found.left;
        const { project, release } = found.right;
        const view = presentContext(deps, ctx);
        return paginate(ctx, arraySource(sortedLinks(release)), { map: (link) => releaseLinkEntity(link, release, project, view) });
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/releases/:tag_name/assets/links/:link_id',
      auth: 'optional',
      params: linkIdParams,
      handler: (ctx) => {
        const found = linkRelease(ctx, deps.app.state);
        if (E.isLeft(found)) return found.left;
        const { project, release } = found.right;
        const link = linkOf(release, ctx.params.link_id);
        if (!link) return { _tag: 'NotFound', message: RECORD_NOT_FOUND };
        return ok(releaseLinkEntity(link, release, project, presentContext(deps, ctx)));
      },
    }),
    commandRoute(deps, {
      method: 'POST',
      path: '/projects/:id/releases/:tag_name/assets/links',
      params: linkCreateParams,
      find: linkRelease,
      command: (ctx, { project }) => ({
        type: 'CreateReleaseLink',
        project_id: project.id,
        tag: tagOf(ctx),
        name: ctx.params.name ?? '',
        url: ctx.params.url ?? '',
        ...(typeof ctx.params.filepath === 'string' ? { filepath: ctx.params.filepath } : {}),
        ...(ctx.params.link_type ? { link_type: ctx.params.link_type } : {}),
      }),
      present: (done, ctx, { project }) => {
        const release = findRelease(done.state.releases, project.id, tagOf(ctx))!;
        const id = (done.events.find((event) => event.type === 'ReleaseLinkCreated')!.data as { id: number }).id;
        return created(releaseLinkEntity(linkOf(release, id)!, release, project, presentContext(deps, ctx, done.state)));
      },
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: '/projects/:id/releases/:tag_name/assets/links/:link_id',
      params: linkUpdateParams,
      find: linkRelease,
      command: (ctx, { project }) => ({
        type: 'UpdateReleaseLink',
        project_id: project.id,
        tag: tagOf(ctx),
        link_id: ctx.params.link_id,
        ...(ctx.params.name !== undefined && ctx.params.name !== null ? { name: ctx.params.name } : {}),
        ...(ctx.params.url !== undefined && ctx.params.url !== null ? { url: ctx.params.url } : {}),
        ...(ctx.params.filepath !== undefined ? { filepath: ctx.params.filepath } : {}),
        ...(ctx.params.link_type ? { link_type: ctx.params.link_type } : {}),
      }),
      error: linkNotFound,
      present: (done, ctx, { project }) => {
        const release = findRelease(done.state.releases, project.id, tagOf(ctx))!;
        return ok(releaseLinkEntity(linkOf(release, ctx.params.link_id)!, release, project, presentContext(deps, ctx, done.state)));
      },
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: '/projects/:id/releases/:tag_name/assets/links/:link_id',
      params: linkIdParams,
      find: linkRelease,
      command: (ctx, { project }) => ({ type: 'DeleteReleaseLink', project_id: project.id, tag: tagOf(ctx), link_id: ctx.params.link_id }),
      error: linkNotFound,
      // The deleted link, as it was (200).
      present: (_done, ctx, { project, release }) => {
        const link = linkOf(release, ctx.params.link_id)!;
        return ok(releaseLinkEntity(link, release, project, presentContext(deps, ctx)));
      },
    }),
  ];
};


/** `release.links.find(params[:link_id])`: ActiveRecord's "404 Not found". */
const linkNotFound = (error: DomainError): DomainError => (error._tag === 'NotFound' && error.message === undefined && error.resource === undefined ? { _tag: 'NotFound', message: RECORD_NOT_FOUND } : error);
