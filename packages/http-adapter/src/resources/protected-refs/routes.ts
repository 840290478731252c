/**
 * Protected tags and protected branches (lib/api/protected_tags.rb, protected_branches.rb with EE's options):
 * list, get, protect, unprotect, for maintainers (`authorize_admin_project`, before parameter validation). Names
 * may be wildcards (`v*`); a lookup by name is exact and misses with `404 Not found` (`find_by!`). The model's
 * validation failures are 422 with full messages.
 */
import * as E from 'fp-ts/lib/Either.js';
import { findProtectedBranch, findProtectedTag, findRepository, fuzzyMatches, isRubyBlank, type DomainError, type Project } from '@forgefold/core';
import { ApiError, arraySource, checkUnmodifiedSince, created, noContent, ok, paginate, route, type AnyRouteDef } from '../../http/index.js';
import { codeOwnerApprovalParams, protectedBranchListParams, protectTagParams, protectBranchParams } from './params.js';
import { execute, type ApiDeps, type Ctx } from '../../app/deps.js';
import { protectedBranchEntity, protectedTagEntity } from './entities.js';
import { projectOf, requireRepositoryAbility } from '../repositories/shared.js';

const humanize = (field: string): string => {
  const text = field.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** `render_api_error!(record.errors.full_messages, 422)` for validations; other refusals as usual. */
const protectFailure = (error: DomainError): ApiError =>
  error._tag === 'Validation'
    ? ApiError.message(
        422,
        Object.entries(error.errors).flatMap(([field, messages]) => messages.map((message) => `${humanize(field)} ${message}`)),
      )
    : ApiError.domain(error);

const NOT_FOUND = '404 Not found';

export const protectedRefRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const admin = requireRepositoryAbility(deps, 'admin_project');
  const repositoryOf = (ctx: Ctx): { project: Project; repository: NonNullable<ReturnType<typeof findRepository>> } => {
    const project = projectOf(deps, ctx, 'admin_project');
    return { project, repository: findRepository(deps.app.state.repositories, project.id)! };
  };
  return [
    // Protected tags
    route({
      method: 'GET',
      path: '/projects/:id/protected_tags',
      auth: 'optional',
      before: admin,
      handler: (ctx) => paginate(ctx, arraySource(repositoryOf(ctx).repository.protected_tags), { map: protectedTagEntity }),
    }),
    route({
      method: 'GET',
      path: '/projects/:id/protected_tags/:name',
      auth: 'optional',
      before: admin,
      handler: (ctx) => {
        const rule = findProtectedTag(repositoryOf(ctx).repository, String(ctx.routeParams['name']));
        if (!rule) throw ApiError.message(404, NOT_FOUND);
        return ok(protectedTagEntity(rule));
      },
    }),
    route({
      method: 'POST',
      path: '/projects/:id/protected_tags',
      auth: 'optional',
      before: admin,
      params: protectedBranchListParams,
      handler: async (ctx) => {
        const { project } = repositoryOf(ctx);
        const result = await execute(deps, ctx, { type: 'ProtectTag', project_id: project.id, name: ctx.params.name ?? '', create_access_level: ctx.params.create_access_level });
        if (E.isLeft(result)) throw protectFailure(result.left);
        return created(protectedTagEntity(findProtectedTag(findRepository(result.right.state.repositories, project.id)!, ctx.params.name ?? '')!));
      },
    }),
    route({
      method: 'DELETE',
      path: '/projects/:id/protected_tags/:name',
      auth: 'optional',
      before: admin,
      handler: async (ctx) => {
        const { project, repository } = repositoryOf(ctx);
        const rule = findProtectedTag(repository, String(ctx.routeParams['name']));
        if (!rule) throw ApiError.message(404, NOT_FOUND);
        checkUnmodifiedSince(ctx.request.headers, rule.created_at);
        const result = await execute(deps, ctx, { type: 'UnprotectTag', project_id: project.id, name: rule.name });
        if (E.isLeft(result)) throw ApiError.domain(result.left);
        return noContent();
      },
    }),

    // Protected branches
    route({
      method: 'GET',
      path: '/projects/:id/protected_branches',
      auth: 'optional',
      before: admin,
      params: protectTagParams,
      handler: (ctx) => {
        // `ProtectedBranchesFinder#by_name` (a present `search`): `fuzzy_arel_match(:name, search.downcase)`, so words
        // under three characters match the whole name only.
        const search = ctx.params.search ?? '';
        const rules = repositoryOf(ctx).repository.protected_branches.filter((rule) => isRubyBlank(search) || fuzzyMatches(rule.name, search));
        return paginate(ctx, arraySource(rules), { map: protectedBranchEntity });
      },
    }),
    route({
      method: 'GET',
      path: '/projects/:id/protected_branches/:name',
      auth: 'optional',
      before: admin,
      handler: (ctx) => {
        const rule = findProtectedBranch(repositoryOf(ctx).repository, String(ctx.routeParams['name']));
        if (!rule) throw ApiError.message(404, NOT_FOUND);
        return ok(protectedBranchEntity(rule));
      },
    }),
    route({
      method: 'POST',
      path: '/projects/:id/protected_branches',
      auth: 'optional',
      before: admin,
      params: protectBranchParams,
      handler: async (ctx) => {
        const { project, repository } = repositoryOf(ctx);
        const name = ctx.params.name ?? '';
        if (findProtectedBranch(repository, name)) throw ApiError.message(409, `Protected branch '${name}' already exists`);
        const result = await execute(deps, ctx, {
          type: 'ProtectBranch',
          project_id: project.id,
          name,
          push_access_level: ctx.params.push_access_level,
          merge_access_level: ctx.params.merge_access_level,
          ...(ctx.params.unprotect_access_level !== undefined && ctx.params.unprotect_access_level !== null ? { unprotect_access_level: ctx.params.unprotect_access_level } : {}),
          allow_force_push: ctx.params.allow_force_push,
          code_owner_approval_required: ctx.params.code_owner_approval_required,
        });
        if (E.isLeft(result)) throw protectFailure(result.left);
        return created(protectedBranchEntity(findProtectedBranch(findRepository(result.right.state.repositories, project.id)!, name)!));
      },
    }),
    // EE's `PATCH` (14.7, `EE::API::ProtectedBranches`): only `code_owner_approval_required` changes, to the value
    // given or its default, false (`update_attribute(…, declared_params[:code_owner_approval_required])`).
    route({
      method: 'PATCH',
      path: '/projects/:id/protected_branches/:name',
      auth: 'optional',
      before: admin,
      params: codeOwnerApprovalParams,
      handler: async (ctx) => {
        const { project, repository } = repositoryOf(ctx);
        const rule = findProtectedBranch(repository, String(ctx.routeParams['name']));
        if (!rule) throw ApiError.message(404, NOT_FOUND);
        const result = await execute(deps, ctx, { type: 'SetCodeOwnerApprovalRequired', project_id: project.id, name: rule.name, code_owner_approval_required: ctx.params.code_owner_approval_required === true });
        if (E.isLeft(result)) throw ApiError.domain(result.left);
        return ok(protectedBranchEntity(findProtectedBranch(findRepository(result.right.state.repositories, project.id)!, rule.name)!));
      },
    }),
    route({
      method: 'DELETE',
      path: '/projects/:id/protected_branches/:name',
      auth: 'optional',
      before: admin,
      handler: async (ctx) => {
        const { project, repository } = repositoryOf(ctx);
        const rule = findProtectedBranch(repository, String(ctx.routeParams['name']));
        if (!rule) throw ApiError.message(404, NOT_FOUND);
        checkUnmodifiedSince(ctx.request.headers, rule.created_at);
        const result = await execute(deps, ctx, { type: 'UnprotectBranch', project_id: project.id, name: rule.name });
        if (E.isLeft(result)) throw ApiError.domain(result.left);
        return noContent();
      },
    }),
  ];
};
