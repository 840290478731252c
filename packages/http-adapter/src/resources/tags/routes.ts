/**
 * Repository tags (lib/api/tags.rb, 14.7; reference §2): list (`order_by` name|updated, `sort`, `search`), get,
 * create (lightweight, or annotated with `message`), delete. Every route needs `download_code` first; creating
 * and deleting need `admin_tag`; every failure of create and delete is a 400 with the service's message.
 */
import { canCreateTag, canRepository, findRepository, forbidden, REF_CHECK_MESSAGES, tagListing, tagRef } from '@forgefold/core';
import * as E from 'fp-ts/lib/Either.js';
import { isValidNewRefName, searchRefNames, sortByVersion, type Tag } from '@forgefold/git';
import { ApiError, checkUnmodifiedSince, created, noContent, ok, paginateLoaded, route, type AnyRouteDef } from '../../http/index.js';
import { listParams, createParams } from './params.js';
import { presentContext, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { tagEntity } from './entities.js';
import { must, precheck, projectOf, requireRepositoryAbility } from '../repositories/shared.js';

const TAG_NOT_FOUND = '404 Tag Not Found';

type Listed = ReturnType<typeof tagListing>[number];
type RepositoryRecord = NonNullable<ReturnType<typeof findRepository>>;

/**
 * The tags of a repository record in one order, kept per record: the record is a new object whenever a ref moves
 * (immer), so an order is computed once per change of the tags rather than per page read (sorting 10,000 tags
 * was most of a page's cost).
 */
const orders = new WeakMap<RepositoryRecord, Map<string, readonly Listed[]>>();

const orderedTags = (repository: RepositoryRecord, orderBy: 'name' | 'updated', desc: boolean): readonly Listed[] => {
  let kept = orders.get(repository);
  if (kept === undefined) {
    kept = new Map();
    orders.set(repository, kept);
  }
  const key = `${orderBy} ${desc ? 'desc' : 'asc'}`;
  const known = kept.get(key);
  if (known !== undefined) return known;
  const listed = tagListing(repository);
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const ordered =
    orderBy === 'name'
      ? sortByVersion(listed, (tag) => tag.name)
      : listed
          .map((tag) => ({ ...tag, at: tag.committed_date === null ? Infinity : Date.parse(tag.committed_date) }))
          .sort((a, b) => a.at - b.at || byName(a, b));
  if (desc) ordered.reverse();
  kept.set(key, ordered);
  return ordered;
};

export const tagRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const download = requireRepositoryAbility(deps, 'download_code');
  const present = (ctx: Ctx, tag: Tag) => {
    const project = projectOf(deps, ctx, 'download_code');
    return tagEntity(tag, project, presentContext(deps, ctx));
  };
  return [
    route({
      method: 'GET',
      path: '/projects/:id/repository/tags',
      auth: 'optional',
      before: download,
      params: listParams,
      handler: (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const git = deps.repositories.open(project.id);
        // The log knows every tag and its commit's date: order, search and page here, then read only the page
        // from git. 14.7 sorts `name` with VersionSorter (reference §2.3), `updated` by the commit's committer
        // date (tags of no commit last), `desc` reversing the ascending list; ties by name.
        const ordered = orderedTags(findRepository(deps.app.state.repositories, project.id)!, ctx.params.order_by === 'name' ? 'name' : 'updated', ctx.params.sort === 'desc');
        const matches = searchRefNames(ordered, ctx.params.search ?? undefined, (tag) => tag.name);
        return paginateLoaded(
          ctx,
          async (offset, limit) => ({
            items: await Promise.all(matches.slice(offset, offset + limit).map((tag) => must(git.findTag(tag.name)))),
            total: matches.length,
          }),
          (tags) => tags.map((tag) => present(ctx, tag)),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/repository/tags/:tag_name',
      auth: 'optional',
      before: download,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const tag = await must(deps.repositories.open(project.id).findTag(String(ctx.routeParams['tag_name'])), TAG_NOT_FOUND);
        return ok(present(ctx, tag));
      },
    }),
    route({
      method: 'POST',
      path: '/projects/:id/repository/tags',
      auth: 'optional',
      before: download,
      params: createParams,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        const state = deps.app.state;
        if (!canRepository(state, viewerId(ctx), project, 'admin_tag')) throw ApiError.domain(forbidden());
        const tagName = ctx.params.tag_name ?? '';
        const ref = ctx.params.ref ?? '';
        // `Tags::CreateService` validates the name first, Gitaly resolves the target, then the pre-receive check a
        // protected tag gets (`TagCheck`) runs: here before git is asked (which checks name and target again).
        if (!isValidNewRefName(tagName)) throw ApiError.message(400, 'Tag name invalid');
        const repository = findRepository(state.repositories, project.id)!;
        if (!canCreateTag(state, viewerId(ctx), project, repository, tagName)) {
          if (E.isLeft(await deps.repositories.open(project.id).findCommit(ref))) throw ApiError.message(400, `Target ${ref} is invalid`);
          throw ApiError.message(400, REF_CHECK_MESSAGES.create_protected_tag);
        }
        const message = ctx.params.message ?? undefined;
        const result = await must(
          deps.repositories.open(project.id).createTag(
            { tag_name: tagName, ref, ...(message ? { message, tagger: deps.repositories.signatureOf(viewerId(ctx)) } : {}) },
            deps.repositories.recorder(project.id, ctx.actor),
          ),
        );
        return created(present(ctx, result.tag));
      },
    }),
    route({
      method: 'DELETE',
      path: '/projects/:id/repository/tags/:tag_name',
      auth: 'optional',
      before: download,
      handler: async (ctx) => {
        const project = projectOf(deps, ctx, 'download_code');
        if (!canRepository(deps.app.state, viewerId(ctx), project, 'admin_tag')) throw ApiError.domain(forbidden());
        const name = String(ctx.routeParams['tag_name']);
        const repository = deps.repositories.open(project.id);
        const tag = await must(repository.findTag(name), TAG_NOT_FOUND);
        // `destroy_conditionally!` against the tagged commit's authored date.
        checkUnmodifiedSince(ctx.request.headers, tag.commit?.authored_date ?? null);
        precheck(deps, ctx, project, { ref: tagRef(name), old_sha: tag.target, new_sha: null });
        await must(repository.deleteTag({ tag_name: name, expectedSha: tag.target }, deps.repositories.recorder(project.id, ctx.actor)));
        return noContent();
      },
    }),
  ];
};

