/**
 * Members of groups and projects (lib/api/members.rb, ee/lib/ee/api/members.rb): direct and effective lists, one
 * member, add (one user or a comma list), update, remove, and for groups approval and the LDAP override. Every
 * write is one core command; every list reads the incrementally maintained projections.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  RECORD_NOT_FOUND,
  addMembersOutcome,
  allSharedGroupsVisible,
  canReadGroup,
  directMemberCount,
  directMembership,
  effectiveCount,
  effectiveGroupMember,
  effectiveProjectMembers,
  effectiveSources,
  effectiveUserIds,
  findGroup,
  findUser,
  forbidden,
  isBillable,
  isExpired,
  isRubyBlank,
  compareUserSearch,
  matchesUserSearch,
  membersOfSource,
  membersOfSourceFrom,
  notFound,
  projectMembersPage,
  tableGet,
  toSentence,
  userIdsFrom,
  winningMember,
  type DomainError,
  type ForgefoldCommand,
  type Group,
  type Member,
  type State,
} from '@forgefold/core';
import { arraySource, checkUnmodifiedSince, created, noContent, ok, paginate, route, type HandlerContext, type OffsetSource, type AnyRouteDef } from '../../http/index.js';
import { presentContext, today, viewerId, type ApiDeps, type Ctx } from '../../app/deps.js';
import { commandRoute, groupOfRoute, type CommandResultOf } from '../../app/routes.js';
import { groupSamlIdentity } from '../scim/entities.js';
import { memberEntity } from './entities.js';
import { addParams, allParams, commaItems, deleteParams, listParams, memberIdParams, oneMemberParams, overrideParams, rubyTruthy, updateParams, userIdParams } from './params.js';
import { dateOf, findSource, mayAdminSource, sourceTypeOf, type FoundSource, type SourceKind } from './source.js';

const lazySource = <T>(count: () => number, slice: (offset: number, limit: number) => readonly T[]): OffsetSource<T> => ({ count, slice });

/** The member search's query (`query`), or null when absent or blank (Rails' `present?`). */
const searchQuery = (query: string | null | undefined): string | null => (query !== undefined && query !== null && !isRubyBlank(query) ? query : null);

/**
 * `retrieve_members` merges `User.search`, whose `reorder` replaces the members' order: with a query, a list is in
 * the search's order (name equal to the query, then username, then e-mail, then the rest; by name within).
 */
const inSearchOrder = (state: State, query: string | null | undefined, rows: Member[]): Member[] => {
  const q = searchQuery(query);
  if (q === null) return rows;
  const compare = compareUserSearch(q);
  const users = new Map(rows.map((m) => [m, m.user_id === null ? undefined : findUser(state.users, m.user_id)] as const));
  return rows.sort((a, b) => {
    const left = users.get(a);
    const right = users.get(b);
    return left && right ? compare(left, right) : 0;
  });
};

const userFilter = (state: State, query: string | null | undefined, userIds: readonly (number | null)[] | null | undefined) => {
  const ids = userIds && userIds.length > 0 ? new Set(userIds.filter((id): id is number => id !== null)) : null;
  // `params[:query].present?`: a blank (or whitespace) query is no filter.
  const q = searchQuery(query);
  return (userId: number): boolean => {
    if (ids && !ids.has(userId)) return false;
    if (q === null) return true;
    const user = findUser(state.users, userId);
    return user !== undefined && matchesUserSearch(user, q);
  };
};

/** `show_seat_info=true`: whether the member's user holds a seat of the source's top-level group. */
const seatInfo = (state: State, source: FoundSource, member: Member, show: boolean | null | undefined) => {
  if (!show || member.user_id === null) return {};
  const group = source.group ?? (source.project.namespace_kind === 'group' ? findGroup(state.groups, source.project.namespace_id) : undefined);
  if (!group) return { isUsingSeat: false };
  let root = group;
  while (root.parent_id !== null) root = findGroup(state.groups, root.parent_id) ?? root;
  return { isUsingSeat: isBillable(state.members, root.id, member.user_id) };
};

const sourceRoutes = (deps: ApiDeps, kind: SourceKind): AnyRouteDef[] => {
  const base = `/${kind}/:id`;
  const type = sourceTypeOf(kind);
  const find = findSource(kind);
  const present = (ctx: Ctx, state?: State) => presentContext(deps, ctx, state);
  /** One member's entity (the single GET, POST and PUT): `show_seat_info` taken as Ruby would (the route does not declare it). */
  const presentOne = (ctx: Ctx & { params: { show_seat_info?: unknown } }, state: State, source: FoundSource, member: Member) =>
    memberEntity(member, present(ctx, state), member.access_level, seatInfo(state, source, member, rubyTruthy(ctx.params.show_seat_info)));
  return [
    route({
      method: 'GET',
      path: `${base}/members`,
      params: listParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const found = find(ctx, state);
        if (E.isLeft(found)) return found.left;
        const source = found.right;
        const day = today(deps);
        const view = present(ctx, state);
        const map = (m: Member) => memberEntity(m, view, m.access_level, seatInfo(state, source, m, ctx.params.show_seat_info));
        // EE `retrieve_members`: with_saml_identity keeps members with a SAML identity of the group's own provider,
        // only when the caller may read SAML identities there (else the parameter is ignored).
        const samlFilter = ctx.params.with_saml_identity === true && source.group !== undefined && source.group.parent_id === null;
        const keepSaml = (m: Member): boolean => {
          if (!samlFilter) return true;
          const identity = groupSamlIdentity(m, view);
          // undefined: the viewer may not read SAML identities here (or SSO is off), so the filter does not apply.
          return identity === undefined || identity !== null;
        };
        if (searchQuery(ctx.params.query) === null && (ctx.params.user_ids?.length ?? 0) === 0 && !samlFilter) {
          // Unfiltered: read the page straight from the per-source index (member-id order).
          const page = lazySource(
            () => directMemberCount(state.members, source.type, source.id),
            (offset, limit) => {
              const out: Member[] = [];
              for (const m of membersOfSourceFrom(state.members, source.type, source.id, offset)) {
                if (!isExpired(m.expires_at, day)) out.push(m);
                if (out.length >= limit) break;
              }
              return out;
            },
          );
          return paginate(ctx, page, { map });
        }
        const keep = userFilter(state, ctx.params.query, ctx.params.user_ids);
        const rows = [...membersOfSource(state.members, source.type, source.id)].filter((m) => m.user_id !== null && !isExpired(m.expires_at, day) && keep(m.user_id) && keepSaml(m));
        return paginate(ctx, arraySource(inSearchOrder(state, ctx.params.query, rows)), { map });
      },
    }),
    route({
      method: 'GET',
      path: `${base}/members/all`,
      params: allParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const found = find(ctx, state);
        if (E.isLeft(found)) return found.left;
        const source = found.right;
        const day = today(deps);
        const view = present(ctx, state);
        const filtered = searchQuery(ctx.params.query) !== null || (ctx.params.user_ids?.length ?? 0) > 0 || !!ctx.params.state;
        const map = (m: Member) => memberEntity(m, view, m.access_level, seatInfo(state, source, m, ctx.params.show_seat_info));
        if (source.group) {
          const group = source.group;
          // Members of groups shared into this one are listed only when the viewer can see that group (the
          // platform's `shared_with_groups.public_or_visible_to_user`), at the share's level at most.
          const viewer = viewerId(ctx);
          const canSee = (g: Group) => canReadGroup(state, viewer, g);
          if (!filtered && allSharedGroupsVisible(state, group, canSee)) {
            // The projection keeps the effective members of every group sorted by user id: a page costs the page.
            const page = lazySource(
              () => effectiveCount(state.members, group.id),
              (offset, limit) => {
                const out: Member[] = [];
                const sources = effectiveSources(state, group, day);
                for (const userId of userIdsFrom(tableGet(state.members.effective, group.id), offset)) {
                  const winner = winningMember(state.members, sources, userId, day);
                  if (winner) out.push(winner);
                  if (out.length >= limit) break;
                }
                return out;
              },
            );
            return paginate(ctx, page, { map });
          }
          const keep = userFilter(state, ctx.params.query, ctx.params.user_ids);
          const rows: Member[] = [];
          const sources = effectiveSources(state, group, day, canSee);
          for (const userId of effectiveUserIds(state.members, group.id)) {
            if (!keep(userId)) continue;
            const winner = winningMember(state.members, sources, userId, day, ctx.params.state);
            if (winner) rows.push(winner);
          }
          return paginate(ctx, arraySource(inSearchOrder(state, ctx.params.query, rows)), { map });
        }
        const viewer = viewerId(ctx);
        if (!filtered) {
          const page = projectMembersPage(state, source.project, (g) => canReadGroup(state, viewer, g), day);
          if (page) return paginate(ctx, page, { map });
        }
        const keep = userFilter(state, ctx.params.query, ctx.params.user_ids);
        const rows = effectiveProjectMembers(state, source.project, (g) => canReadGroup(state, viewer, g), day, ctx.params.state).filter((m) => keep(m.user_id!));
        return paginate(ctx, arraySource(inSearchOrder(state, ctx.params.query, rows)), { map });
      },
    }),
    route({
      method: 'GET',
      path: `${base}/members/all/:user_id`,
      params: oneMemberParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const found = find(ctx, state);
        if (E.isLeft(found)) return found.left;
        const source = found.right;
        const userId = ctx.params.user_id;
        const day = today(deps);
        const viewer = viewerId(ctx);
        const winner = source.group
          ? effectiveGroupMember(state, source.group, userId, day, null, (g) => canReadGroup(state, viewer, g))
          : effectiveProjectMembers(state, source.project, (g) => canReadGroup(state, viewer, g), day).find((m) => m.user_id === userId);
        return winner ? ok(presentOne(ctx, state, source, winner)) : RECORD_NOT_FOUND;
      },
    }),
    route({
      method: 'GET',
      path: `${base}/members/:user_id`,
      params: oneMemberParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const found = find(ctx, state);
        if (E.isLeft(found)) return found.left;
        const source = found.right;
        const member = directMembership(state.members, source.type, source.id, ctx.params.user_id);
        if (!member || isExpired(member.expires_at, today(deps))) return RECORD_NOT_FOUND;
        return ok(presentOne(ctx, state, source, member));
      },
    }),
    commandRoute(deps, {
      method: 'POST',
      path: `${base}/members`,
      params: addParams,
      find,
      command: (ctx, source): ForgefoldCommand | DomainError => {
        const { access_level, user_id } = ctx.params;
        const expires_at = dateOf(ctx.params.expires_at);
        const raw = String(user_id ?? '');
        // A comma list is planned once, by the decision: its outcome names the failures, its events record the rest.
        const items = commaItems(user_id);
        if (items) return { type: 'AddMembers', source_type: type, source_id: source.id, user_ids: items, access_level: access_level ?? 0, expires_at };
        if (raw.trim() === '') return notFound('User');
        if (!mayAdminSource(ctx, deps.app.state, source, today(deps))) return forbidden();
        const id = typeof user_id === 'number' ? user_id : /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : -1;
        if (id < 0) return notFound('User');
        return { type: 'AddMember', source_type: type, source_id: source.id, user_id: id, access_level: access_level ?? 0, expires_at };
      },
      present: (done, ctx, source) => {
        if (commaItems(ctx.params.user_id)) {
          const outcome = addMembersOutcome(done);
          if (outcome.error) return created({ status: 'error', message: outcome.error });
          if (outcome.failures.length > 0) return created({ status: 'error', message: toSentence(outcome.failures) });
          return created({ status: 'success' });
        }
        const member = directMembership(done.state.members, type, source.id, Number(String(ctx.params.user_id).trim()))!;
        return created(presentOne(ctx, done.state, source, member));
      },
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: `${base}/members/:user_id`,
      params: updateParams,
      find,
      command: ({ params }, source) => ({
        type: 'UpdateMember',
        source_type: type,
        source_id: source.id,
        user_id: params.user_id,
        access_level: params.access_level ?? 0,
        ...(params.expires_at !== undefined ? { expires_at: dateOf(params.expires_at) } : {}),
      }),
      present: (done, ctx, source) => {
        const member = directMembership(done.state.members, type, source.id, ctx.params.user_id)!;
        return ok(presentOne(ctx, done.state, source, member));
      },
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: `${base}/members/:user_id`,
      params: deleteParams,
      find,
      command: (ctx, source) => {
        const member = directMembership(deps.app.state.members, source.type, source.id, ctx.params.user_id);
        if (!member) return RECORD_NOT_FOUND;
        checkUnmodifiedSince(ctx.request.headers, member.updated_at);
        return { type: 'RemoveMember', source_type: type, source_id: source.id, user_id: ctx.params.user_id, skip_subresources: ctx.params.skip_subresources ?? false };
      },
      present: () => noContent(),
    }),
  ];
};

/** Approval of awaiting members and the LDAP override (groups only). */
const groupRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  const approveAll = (method: 'POST' | 'PUT') =>
    commandRoute(deps, { method, path: '/groups/:id/members/approve_all', find: groupOfRoute, command: (_ctx, group) => ({ type: 'ApproveAllMembers', group_id: group.id }), present: () => noContent() });
  const approve = (method: 'POST' | 'PUT') =>
    commandRoute(deps, {
      method,
      path: '/groups/:id/members/:member_id/approve',
      params: memberIdParams,
      find: groupOfRoute,
      command: (ctx, group) => ({ type: 'ApproveMember', group_id: group.id, member_id: ctx.params.member_id }),
      present: () => noContent(),
    });
  const overridden = (done: CommandResultOf, ctx: HandlerContext<{ readonly user_id: number }>, group: Group) =>
    memberEntity(directMembership(done.state.members, 'Namespace', group.id, ctx.params.user_id)!, presentContext(deps, ctx, done.state));
  const override = (group: Group, userId: number, value: boolean): ForgefoldCommand => ({ type: 'SetMemberOverride', group_id: group.id, user_id: userId, override: value });
  const path = '/groups/:id/members/:user_id/override';
  return [
    // approve_all is declared before members/:user_id so that PUT …/members/approve_all is not an update.
    approveAll('POST'),
    approveAll('PUT'),
    approve('PUT'),
    approve('POST'),
    commandRoute(deps, { method: 'POST', path, params: userIdParams, find: groupOfRoute, command: (ctx, group) => override(group, ctx.params.user_id, true), present: (done, ctx, group) => created(overridden(done, ctx, group)) }),
    commandRoute(deps, { method: 'DELETE', path, params: userIdParams, find: groupOfRoute, command: (ctx, group) => override(group, ctx.params.user_id, false), present: (done, ctx, group) => ok(overridden(done, ctx, group)) }),
    commandRoute(deps, {
      method: 'PUT',
      path,
      params: overrideParams,
      find: groupOfRoute,
      command: (ctx, group) => override(group, ctx.params.user_id, ctx.params.override ?? true),
      present: (done, ctx, group) => ok(overridden(done, ctx, group)),
    }),
  ];
};

export const memberRoutes = (deps: ApiDeps): AnyRouteDef[] => [...groupRoutes(deps), ...sourceRoutes(deps, 'groups'), ...sourceRoutes(deps, 'projects')];
