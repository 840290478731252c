/**
 * Members of groups and projects (lib/api/members.rb, ee/lib/ee/api/members.rb), invitations, shares, billable and
 * pending members, approval, override, LDAP group links and directory sync, and the membership audit API.
 * Every write is one core command; every list reads the incrementally maintained projections.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  billableCount,
  billableTable,
  canReadGroup,
  effectiveCount,
  effectiveGroupMember,
  effectiveProjectMembers,
  findGroup,
  findGroupByIdOrPath,
  findProjectByIdOrPath,
  findUser,
  findUserByUsername,
  highestLevelInHierarchy,
  isBillable,
  isExpired,
  joinedHierarchyAt,
  ldapLinksOf,
  linkBetween,
  matchesUserSearch,
  membersAsOf,
  membershipHistory,
  membershipsInHierarchy,
  membershipType,
  membersOfSource,
  membersOfSourceFrom,
  projectMembersPage,
  effectiveSources,
  allSharedGroupsVisible,
  winningMember,
  isEmail,
  nextExpiry,
  directMemberCount,
  invitationOf,
  pendingMembers,
  planAddMembers,
  planInvitations,
  resolveSource,
  canAdminSource,
  userIdsFrom,
  effectiveUserIds,
  directMembership,
  accessRequestsOf,
  findAccessRequest,
  badRequest,
  forbidden,
  notFound,
  type DomainError,
  type EventStore,
  type ForgefoldCommand,
  type Group,
  type Member,
  type Project,
  type SourceType,
  type State,
  type User,
} from '@forgefold/core';
import {
  ApiError,
  checkUnmodifiedSince,
  created,
  noContent,
  ok,
  optional,
  paginate,
  requires,
  route,
  schema,
  T,
  mutuallyExclusive,
  atLeastOneOf,
  type OffsetSource,
  type RouteDef,
} from '../http/index.js';
import { execute, findReadableGroup, findReadableProject, presentContext, today, viewerId, type ApiDeps, type Ctx } from '../app/deps.js';
import {
  accessRequesterEntity,
  groupSamlIdentityOf,
  billableMemberEntity,
  billableMembershipEntity,
  invitationEntity,
  ldapGroupLinkEntity,
  memberEntity,
  pendingMemberEntity,
  projectGroupLinkEntity,
  sharedWithGroupsEntity,
} from '../entities/members.js';
import { groupDetailEntity } from '../entities/groups.js';
import { canReadProject, findProject, tableGet } from '@forgefold/core';

type Kind = 'groups' | 'projects';
const sourceTypeOf = (kind: Kind): SourceType => (kind === 'groups' ? 'Namespace' : 'Project');

interface FoundSource {
  readonly type: SourceType;
  readonly id: number;
  readonly group?: Group;
  readonly project?: Project;
}

/** `find_source!`: readable group or project, else 404 "Group/Project Not Found". */
const findSource = (state: State, ctx: Ctx, kind: Kind): E.Either<DomainError, FoundSource> => {
  const id = String(ctx.routeParams['id']);
  if (kind === 'groups') return E.map((group: Group): FoundSource => ({ type: 'Namespace', id: group.id, group }))(findReadableGroup(state, ctx, id));
  return E.map((project: Project): FoundSource => ({ type: 'Project', id: project.id, project }))(findReadableProject(state, ctx, id));
};

const orThrow = <A>(either: E.Either<DomainError, A>): A => {
  if (E.isLeft(either)) throw ApiError.domain(either.left);
  return either.right;
};

/** Runs a command and throws its domain error. */
const run = async (deps: ApiDeps, ctx: Ctx, command: ForgefoldCommand) => orThrow(await execute(deps, ctx, command));

const RECORD_NOT_FOUND = notFound(undefined, '404 Not found');

const isAdminViewer = (ctx: Ctx): boolean => ctx.principal?.isAdmin ?? false;

/** `admin_group_member` / `admin_project_member` on the source. */
const mayAdmin = (deps: ApiDeps, state: State, ctx: Ctx, source: FoundSource): boolean => {
  const resolved = resolveSource(state, source.type, source.id);
  return E.isRight(resolved) && canAdminSource(state, viewerId(ctx), resolved.right, today(deps));
};

const lazySource = <T>(count: () => number, slice: (offset: number, limit: number) => readonly T[]): OffsetSource<T> => ({ count, slice });

const userFilter = (state: State, query: string | null | undefined, userIds: readonly (number | null)[] | null | undefined) => {
  const ids = userIds && userIds.length > 0 ? new Set(userIds.filter((id): id is number => id !== null)) : null;
  const q = query ?? '';
  return (userId: number): boolean => {
    if (ids && !ids.has(userId)) return false;
    if (q === '') return true;
    const user = findUser(state.users, userId);
    return user !== undefined && matchesUserSearch(user, q);
  };
};

const listParams = schema(optional('query', T.String), optional('user_ids', T.CommaSeparatedIntegers), optional('show_seat_info', T.Boolean), optional('with_saml_identity', T.Boolean), optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] }));
const allParams = schema(
  optional('query', T.String),
  optional('user_ids', T.CommaSeparatedIntegers),
  optional('show_seat_info', T.Boolean),
  optional('state', T.String, { values: ['awaiting', 'active'] }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20, exceptValues: [0] }),
);
const userIdParams = schema(requires('user_id', T.Integer));
const addParams = schema(
  requires('access_level', T.Integer),
  requires('user_id', T.IntegerOrString),
  optional('expires_at', T.DateTime),
  optional('invite_source', T.String, { default: 'members-api' }),
  optional('tasks_to_be_done', T.CommaSeparatedStrings),
  optional('tasks_project_id', T.Integer),
);
const updateParams = schema(requires('user_id', T.Integer), requires('access_level', T.Integer), optional('expires_at', T.DateTime));
const deleteParams = schema(requires('user_id', T.Integer), optional('skip_subresources', T.Boolean, { default: false }), optional('unassign_issuables', T.Boolean, { default: false }));

const dateOf = (value: string | null | undefined): string | null | undefined => (value === null || value === undefined ? value : value.slice(0, 10));

// ---------------------------------------------------------------------------------------------------------------

const memberRoutesFor = (deps: ApiDeps, kind: Kind): RouteDef[] => {
  const base = `/${kind}/:id`;
  const type = sourceTypeOf(kind);
  const present = (ctx: Ctx, state?: State) => presentContext(deps, ctx, state);
  const seatInfo = (state: State, source: FoundSource, member: Member, show: boolean | null | undefined) => {
    if (!show || member.user_id === null) return {};
    const group = source.group ?? (source.project?.namespace_kind === 'group' ? findGroup(state.groups, source.project.namespace_id) : undefined);
    if (!group) return { isUsingSeat: false };
    let root = group;
    while (root.parent_id !== null) root = findGroup(state.groups, root.parent_id) ?? root;
    return { isUsingSeat: isBillable(state.members, root.id, member.user_id) };
  };

  return [
    route({
      method: 'GET',
      path: `${base}/members`,
      params: listParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        const day = today(deps);
        const view = present(ctx, state);
        const map = (m: Member) => memberEntity(m, view, m.access_level, seatInfo(state, source, m, ctx.params.show_seat_info));
        // EE `retrieve_members`: with_saml_identity keeps members with a SAML identity of the group's own provider,
        // only when the caller may read SAML identities there (else the parameter is ignored).
        const samlFilter = ctx.params.with_saml_identity === true && source.group !== undefined && source.group.parent_id === null;
        const keepSaml = (m: Member): boolean => {
          if (!samlFilter) return true;
          const identity = groupSamlIdentityOf(m, view);
          // undefined: the viewer may not read SAML identities here (or SSO is off), so the filter does not apply.
          return identity === undefined || identity !== null;
        };
        if ((ctx.params.query ?? '') === '' && (ctx.params.user_ids?.length ?? 0) === 0 && !samlFilter) {
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
        return paginate(ctx, { count: () => rows.length, slice: (o, l) => rows.slice(o, o + l) }, { map });
      },
    }),
    route({
      method: 'GET',
      path: `${base}/members/all`,
      params: allParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        const day = today(deps);
        const view = present(ctx, state);
        const filtered = (ctx.params.query ?? '') !== '' || (ctx.params.user_ids?.length ?? 0) > 0 || !!ctx.params.state;
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
          return paginate(ctx, { count: () => rows.length, slice: (o, l) => rows.slice(o, o + l) }, { map });
        }
        const viewer = viewerId(ctx);
        if (!filtered) {
          const page = projectMembersPage(state, source.project!, (g) => canReadGroup(state, viewer, g), day);
          if (page) return paginate(ctx, page, { map });
        }
        const keep = userFilter(state, ctx.params.query, ctx.params.user_ids);
        const rows = effectiveProjectMembers(state, source.project!, (g) => canReadGroup(state, viewer, g), day, ctx.params.state).filter((m) => keep(m.user_id!));
        return paginate(ctx, { count: () => rows.length, slice: (o, l) => rows.slice(o, o + l) }, { map });
      },
    }),
    route({
      method: 'GET',
      path: `${base}/members/all/:user_id`,
      params: userIdParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        const userId = ctx.params.user_id!;
        const day = today(deps);
        const view = present(ctx, state);
        const viewer = viewerId(ctx);
        if (source.group) {
          const winner = effectiveGroupMember(state, source.group, userId, day, null, (g) => canReadGroup(state, viewer, g));
          if (!winner) throw ApiError.domain(RECORD_NOT_FOUND);
          return ok(memberEntity(winner, view));
        }
        const winner = effectiveProjectMembers(state, source.project!, (g) => canReadGroup(state, viewer, g), day).find((m) => m.user_id === userId);
        if (!winner) throw ApiError.domain(RECORD_NOT_FOUND);
        return ok(memberEntity(winner, view));
      },
    }),
    route({
      method: 'GET',
      path: `${base}/members/:user_id`,
      params: userIdParams,
      handler: (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        const member = directMembership(state.members, source.type, source.id, ctx.params.user_id!);
        if (!member || isExpired(member.expires_at, today(deps))) throw ApiError.domain(RECORD_NOT_FOUND);
        return ok(memberEntity(member, present(ctx, state)));
      },
    }),
    route({
      method: 'POST',
      path: `${base}/members`,
      params: addParams,
      handler: async (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        const { access_level, user_id } = ctx.params;
        const expires_at = dateOf(ctx.params.expires_at);
        const raw = String(user_id ?? '');
        if (raw.includes(',')) {
          const command = { type: 'AddMembers' as const, source_type: type, source_id: source.id, user_ids: raw.split(','), access_level: access_level ?? 0, expires_at };
          // The plan against the current state names the failures; the command records the successes.
          const resolved = orThrow(resolveSource(state, type, source.id));
          if (!canAdminSource(state, viewerId(ctx), resolved, today(deps))) throw ApiError.domain(forbidden());
          const plan = planAddMembers({ command, actor: ctx.actor, at: deps.clock.now() }, state, resolved);
          await run(deps, ctx, command);
          if (plan.error) return created({ status: 'error', message: plan.error });
          if (plan.failures.length > 0) return created({ status: 'error', message: toSentence(plan.failures) });
          return created({ status: 'success' });
        }
        if (raw.trim() === '') throw ApiError.domain(notFound('User'));
        const id = typeof user_id === 'number' ? user_id : /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : -1;
        if (!canAdminSource(state, viewerId(ctx), orThrow(resolveSource(state, type, source.id)), today(deps))) throw ApiError.domain(forbidden());
        if (id < 0) throw ApiError.domain(notFound('User'));
        const done = await run(deps, ctx, { type: 'AddMember', source_type: type, source_id: source.id, user_id: id, access_level: access_level ?? 0, expires_at });
        const member = directMembership(done.state.members, type, source.id, id)!;
        return created(memberEntity(member, present(ctx, done.state)));
      },
    }),
    route({
      method: 'PUT',
      path: `${base}/members/:user_id`,
      params: updateParams,
      handler: async (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        const userId = ctx.params.user_id!;
        const done = await run(deps, ctx, { type: 'UpdateMember', source_type: type, source_id: source.id, user_id: userId, access_level: ctx.params.access_level ?? 0, ...(ctx.params.expires_at !== undefined ? { expires_at: dateOf(ctx.params.expires_at) } : {}) });
        return ok(memberEntity(directMembership(done.state.members, type, source.id, userId)!, present(ctx, done.state)));
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/members/:user_id`,
      params: deleteParams,
      handler: async (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        const member = directMembership(state.members, source.type, source.id, ctx.params.user_id!);
        if (!member) throw ApiError.domain(RECORD_NOT_FOUND);
        checkUnmodifiedSince(ctx.request.headers, member.updated_at);
        await run(deps, ctx, { type: 'RemoveMember', source_type: type, source_id: source.id, user_id: member.user_id!, skip_subresources: ctx.params.skip_subresources ?? false });
        return noContent();
      },
    }),
    // Access requests (lib/api/access_requests.rb)
    route({
      method: 'GET',
      path: `${base}/access_requests`,
      params: schema(optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] })),
      handler: (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        // AccessRequestsFinder#execute!: administrators of the source only.
        if (!mayAdmin(deps, state, ctx, source)) throw ApiError.domain(forbidden());
        const rows = accessRequestsOf(state, source.type, source.id);
        const view = present(ctx, state);
        return paginate(ctx, { count: () => rows.length, slice: (o, l) => rows.slice(o, o + l) }, { map: (r) => accessRequesterEntity(r, view) });
      },
    }),
    route({
      method: 'POST',
      path: `${base}/access_requests`,
      handler: async (ctx) => {
        const source = orThrow(findSource(deps.app.state, ctx, kind));
        const done = await run(deps, ctx, { type: 'RequestAccess', source_type: type, source_id: source.id });
        return created(accessRequesterEntity(findAccessRequest(done.state, type, source.id, viewerId(ctx)!)!, present(ctx, done.state)));
      },
    }),
    route({
      method: 'PUT',
      path: `${base}/access_requests/:user_id/approve`,
      params: schema(requires('user_id', T.Integer), optional('access_level', T.Integer)),
      handler: async (ctx) => {
        const source = orThrow(findSource(deps.app.state, ctx, kind));
        const userId = ctx.params.user_id!;
        const done = await run(deps, ctx, { type: 'ApproveAccessRequest', source_type: type, source_id: source.id, user_id: userId, access_level: ctx.params.access_level ?? null });
        return created(memberEntity(directMembership(done.state.members, type, source.id, userId)!, present(ctx, done.state)));
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/access_requests/:user_id`,
      params: schema(requires('user_id', T.Integer)),
      handler: async (ctx) => {
        const source = orThrow(findSource(deps.app.state, ctx, kind));
        await run(deps, ctx, { type: 'DenyAccessRequest', source_type: type, source_id: source.id, user_id: ctx.params.user_id! });
        return noContent();
      },
    }),
    // Invitations (lib/api/invitations.rb)
    route({
      method: 'POST',
      path: `${base}/invitations`,
      params: schema(requires('email', T.String), requires('access_level', T.Integer, { values: [10, 20, 30, 40, 50] }), optional('expires_at', T.DateTime), optional('invite_source', T.String, { default: 'invitations-api' })),
      handler: async (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        const resolved = orThrow(resolveSource(state, type, source.id));
        if (!canAdminSource(state, viewerId(ctx), resolved, today(deps))) throw ApiError.domain(forbidden());
        const emails = (ctx.params.email ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');
        if (emails.length === 0) throw ApiError.error(400, 'email is empty');
        if (emails.some((e) => !isEmail(e))) throw ApiError.error(400, 'email contains an invalid email address');
        const command = { type: 'InviteMembers' as const, source_type: type, source_id: source.id, emails, access_level: ctx.params.access_level ?? 0, expires_at: dateOf(ctx.params.expires_at) };
        const plan = planInvitations({ command, actor: ctx.actor, at: deps.clock.now() }, state, resolved);
        await run(deps, ctx, command);
        return created(Object.keys(plan.failures).length > 0 ? { status: 'error', message: plan.failures } : { status: 'success' });
      },
    }),
    route({
      method: 'GET',
      path: `${base}/invitations`,
      params: schema(optional('query', T.String), optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] })),
      handler: (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        if (!mayAdmin(deps, state, ctx, source)) throw ApiError.domain(forbidden());
        const q = (ctx.params.query ?? '').toLowerCase();
        const rows = [...membersOfSource(state.members, source.type, source.id)].filter((m) => m.user_id === null && m.invite_email !== null && m.invite_email.toLowerCase().includes(q));
        const view = present(ctx, state);
        return paginate(ctx, { count: () => rows.length, slice: (o, l) => rows.slice(o, o + l) }, { map: (m) => invitationEntity(m, view) });
      },
    }),
    route({
      method: 'PUT',
      path: `${base}/invitations/:email`,
      params: schema(requires('email', T.String), optional('access_level', T.Integer, { values: [10, 20, 30, 40, 50] }), optional('expires_at', T.DateTime)),
      handler: async (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        const email = ctx.params.email ?? '';
        const done = await run(deps, ctx, {
          type: 'UpdateInvitation',
          source_type: type,
          source_id: source.id,
          email,
          ...(ctx.params.access_level !== undefined && ctx.params.access_level !== null ? { access_level: ctx.params.access_level } : {}),
          ...(ctx.params.expires_at !== undefined ? { expires_at: dateOf(ctx.params.expires_at) } : {}),
        });
        return ok(invitationEntity(invitationOf(done.state.members, type, source.id, email)!, present(ctx, done.state)));
      },
    }),
    route({
      method: 'DELETE',
      path: `${base}/invitations/:email`,
      params: schema(requires('email', T.String)),
      handler: async (ctx) => {
        const state = deps.app.state;
        const source = orThrow(findSource(state, ctx, kind));
        await run(deps, ctx, { type: 'RemoveInvitation', source_type: type, source_id: source.id, email: ctx.params.email ?? '' });
        return noContent();
      },
    }),
  ];
};

const toSentence = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : items.length === 2 ? `${items[0]} and ${items[1]}` : `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;

// ---------------------------------------------------------------------------------------------------------------
// Groups only: billable and pending members, approval, override, shares, LDAP

const BILLABLE_SORTS = ['access_level_asc', 'access_level_desc', 'last_joined', 'name_asc', 'name_desc', 'oldest_joined', 'oldest_sign_in', 'recent_sign_in', 'last_activity_on_asc', 'last_activity_on_desc'];

const compareNullable = (a: string | null, b: string | null, dir: 1 | -1): number => {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -dir : dir;
};

const sortBillable = (state: State, root: Group, users: User[], sort: string): User[] => {
  const key = new Map<number, number | string>();
  const byId = (a: User, b: User) => a.id - b.id;
  const signIn = (u: User) => u.current_sign_in_at ?? (u.last_activity_on ? `${u.last_activity_on}T00:00:00.000Z` : null);
  switch (sort) {
    case 'name_asc':
      return users.sort((a, b) => a.name.localeCompare(b.name) || byId(a, b));
    case 'name_desc':
      return users.sort((a, b) => b.name.localeCompare(a.name) || byId(a, b));
    case 'last_activity_on_asc':
      return users.sort((a, b) => compareNullable(a.last_activity_on, b.last_activity_on, 1) || byId(a, b));
    case 'last_activity_on_desc':
      return users.sort((a, b) => compareNullable(a.last_activity_on, b.last_activity_on, -1) || byId(a, b));
    case 'recent_sign_in':
      return users.sort((a, b) => compareNullable(signIn(a), signIn(b), -1) || byId(a, b));
    case 'oldest_sign_in':
      return users.sort((a, b) => compareNullable(signIn(a), signIn(b), 1) || byId(a, b));
    case 'access_level_asc':
    case 'access_level_desc': {
      for (const u of users) key.set(u.id, highestLevelInHierarchy(state, root, u.id));
      const dir = sort === 'access_level_asc' ? 1 : -1;
      return users.sort((a, b) => dir * ((key.get(a.id) as number) - (key.get(b.id) as number)) || byId(a, b));
    }
    case 'last_joined':
    case 'oldest_joined': {
      for (const u of users) key.set(u.id, joinedHierarchyAt(state, root, u.id));
      const dir = sort === 'oldest_joined' ? 1 : -1;
      return users.sort((a, b) => dir * String(key.get(a.id)).localeCompare(String(key.get(b.id))) || byId(a, b));
    }
    default:
      return users.sort(byId);
  }
};

const groupOnlyRoutes = (deps: ApiDeps): RouteDef[] => {
  const present = (ctx: Ctx, state?: State) => presentContext(deps, ctx, state);
  const group = (state: State, ctx: Ctx): Group => orThrow(findReadableGroup(state, ctx, String(ctx.routeParams['id'])));
  const mayAdminGroup = (state: State, ctx: Ctx, g: Group) => mayAdmin(deps, state, ctx, { type: 'Namespace', id: g.id, group: g });
  const overrideHandler = (override: boolean | 'param', status: number) => async (ctx: Ctx & { params: { user_id: number | null; override?: boolean | null } }) => {
    const state = deps.app.state;
    const g = group(state, ctx);
    const value = override === 'param' ? (ctx.params.override ?? true) : override;
    const done = await run(deps, ctx, { type: 'SetMemberOverride', group_id: g.id, user_id: ctx.params.user_id!, override: value });
    const member = directMembership(done.state.members, 'Namespace', g.id, ctx.params.user_id!)!;
    return { status, body: memberEntity(member, present(ctx, done.state)) };
  };
  const approveAll = async (ctx: Ctx) => {
    const g = group(deps.app.state, ctx);
    await run(deps, ctx, { type: 'ApproveAllMembers', group_id: g.id });
    return noContent();
  };
  const approve = async (ctx: Ctx & { params: { member_id: number | null } }) => {
    const g = group(deps.app.state, ctx);
    await run(deps, ctx, { type: 'ApproveMember', group_id: g.id, member_id: ctx.params.member_id! });
    return noContent();
  };
  return [
    route({
      method: 'GET',
      path: '/groups/:id/billable_members',
      params: schema(optional('search', T.String), optional('sort', T.String, { values: BILLABLE_SORTS }), optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] })),
      handler: (ctx) => {
        const state = deps.app.state;
        const root = group(state, ctx);
        if (root.parent_id !== null || !mayAdminGroup(state, ctx, root)) throw ApiError.domain(badRequest());
        const view = present(ctx, state);
        const map = (user: User) => billableMemberEntity(user, view, membershipType(state, root, user.id));
        const search = ctx.params.search ?? '';
        const sort = ctx.params.sort ?? 'id_asc';
        const table = billableTable(state.members, root.id);
        if (search === '' && (sort === 'id_asc')) {
          // Billable users are kept per top-level group in user-id order: a page costs the page.
          return paginate(
            ctx,
            lazySource(
              () => billableCount(state.members, root.id),
              (offset, limit) => {
                const out: User[] = [];
                for (const userId of userIdsFrom(table, offset)) {
                  const user = findUser(state.users, userId);
                  if (user) out.push(user);
                  if (out.length >= limit) break;
                }
                return out;
              },
            ),
            { map },
          );
        }
        const users: User[] = [];
        for (const userId of userIdsFrom(table, 0)) {
          const user = findUser(state.users, userId);
          if (user && (search === '' || matchesUserSearch(user, search))) users.push(user);
        }
        const sorted = sortBillable(state, root, users, sort);
        return paginate(ctx, { count: () => sorted.length, slice: (o, l) => sorted.slice(o, o + l) }, { map });
      },
    }),
    route({
      method: 'GET',
      path: '/groups/:id/billable_members/:user_id/memberships',
      params: schema(requires('user_id', T.Integer), optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] })),
      handler: (ctx) => {
        const state = deps.app.state;
        const root = group(state, ctx);
        if (!mayAdminGroup(state, ctx, root) || root.parent_id !== null) throw ApiError.domain(badRequest());
        const user = findUser(state.users, ctx.params.user_id!);
        if (!user) throw ApiError.domain(RECORD_NOT_FOUND);
        if (!isBillable(state.members, root.id, user.id)) throw ApiError.domain(notFound('User'));
        const rows = membershipsInHierarchy(state, root, user.id);
        const view = present(ctx, state);
        return paginate(ctx, { count: () => rows.length, slice: (o, l) => rows.slice(o, o + l) }, { map: (m) => billableMembershipEntity(m, view) });
      },
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id/billable_members/:user_id',
      params: schema(requires('user_id', T.Integer)),
      handler: async (ctx) => {
        const g = group(deps.app.state, ctx);
        await run(deps, ctx, { type: 'RemoveBillableMember', group_id: g.id, user_id: ctx.params.user_id! });
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: '/groups/:id/pending_members',
      params: schema(optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] })),
      handler: (ctx) => {
        const state = deps.app.state;
        const root = group(state, ctx);
        if (root.parent_id !== null || !mayAdminGroup(state, ctx, root)) throw ApiError.domain(badRequest());
        const rows = pendingMembers(state, root);
        const view = present(ctx, state);
        return paginate(ctx, { count: () => rows.length, slice: (o, l) => rows.slice(o, o + l) }, { map: (m) => pendingMemberEntity(m, view) });
      },
    }),
    // approve_all is declared before members/:user_id so that PUT …/members/approve_all is not an update.
    route({ method: 'POST', path: '/groups/:id/members/approve_all', handler: approveAll }),
    route({ method: 'PUT', path: '/groups/:id/members/approve_all', handler: approveAll }),
    route({ method: 'PUT', path: '/groups/:id/members/:member_id/approve', params: schema(requires('member_id', T.Integer)), handler: approve }),
    route({ method: 'POST', path: '/groups/:id/members/:member_id/approve', params: schema(requires('member_id', T.Integer)), handler: approve }),
    route({
      method: 'POST',
      path: '/groups/:id/members/:user_id/override',
      params: schema(requires('user_id', T.Integer)),
      handler: async (ctx) => {
        const r = await overrideHandler(true, 201)(ctx);
        return created(r.body);
      },
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id/members/:user_id/override',
      params: schema(requires('user_id', T.Integer)),
      handler: async (ctx) => ok((await overrideHandler(false, 200)(ctx)).body),
    }),
    route({
      method: 'PUT',
      path: '/groups/:id/members/:user_id/override',
      params: schema(requires('user_id', T.Integer), optional('override', T.Boolean)),
      handler: async (ctx) => ok((await overrideHandler('param', 200)(ctx)).body),
    }),
    // Shares
    route({
      method: 'POST',
      path: '/groups/:id/share',
      params: schema(requires('group_id', T.Integer), requires('group_access', T.Integer, { values: [10, 20, 30, 40, 50] }), optional('expires_at', T.Date)),
      handler: async (ctx) => {
        const state = deps.app.state;
        const shared = group(state, ctx);
        const invited = orThrow(findReadableGroup(state, ctx, String(ctx.params.group_id)));
        const done = await run(deps, ctx, { type: 'ShareGroup', group_id: shared.id, shared_with_group_id: invited.id, group_access: ctx.params.group_access!, expires_at: ctx.params.expires_at ?? null });
        const view = present(ctx, done.state);
        const viewer = viewerId(ctx);
        const detail = groupDetailEntity(findGroup(done.state.groups, shared.id)!, view, (projectId) => {
          const project = findProject(done.state.projects, projectId);
          return project !== undefined && canReadProject(done.state, viewer, project);
        });
        return created({ ...detail, shared_with_groups: sharedWithGroupsEntity(shared.id, view) });
      },
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id/share/:group_id',
      params: schema(requires('group_id', T.Integer)),
      handler: async (ctx) => {
        const shared = group(deps.app.state, ctx);
        await run(deps, ctx, { type: 'UnshareGroup', group_id: shared.id, shared_with_group_id: ctx.params.group_id! });
        return noContent();
      },
    }),
    // LDAP group links (ee/lib/api/ldap_group_links.rb) and the directory sync
    route({
      method: 'GET',
      path: '/groups/:id/ldap_group_links',
      handler: (ctx) => {
        const state = deps.app.state;
        const g = group(state, ctx);
        if (!mayAdminGroup(state, ctx, g)) throw ApiError.domain(forbidden());
        const links = [...ldapLinksOf(state.members, g.id)];
        // ee/lib/api/ldap_group_links.rb: an empty list is a 404 with its own text.
        if (links.length === 0) throw ApiError.message(404, 'No linked LDAP groups found');
        return ok(links.map(ldapGroupLinkEntity));
      },
    }),
    route({
      method: 'POST',
      path: '/groups/:id/ldap_group_links',
      params: schema(optional('cn', T.String), optional('filter', T.String), requires('group_access', T.Integer, { values: [10, 20, 30, 40, 50] }), requires('provider', T.String), mutuallyExclusive('cn', 'filter'), atLeastOneOf('cn', 'filter')),
      handler: async (ctx) => {
        const g = group(deps.app.state, ctx);
        await run(deps, ctx, { type: 'AddLdapGroupLink', group_id: g.id, cn: ctx.params.cn ?? null, filter: ctx.params.filter ?? null, group_access: ctx.params.group_access!, provider: ctx.params.provider ?? '' });
        return created(ldapGroupLinkEntity({ cn: ctx.params.cn ?? null, filter: ctx.params.cn ? null : (ctx.params.filter ?? null), group_access: ctx.params.group_access!, provider: ctx.params.provider ?? '' }));
      },
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id/ldap_group_links',
      params: schema(optional('cn', T.String), optional('filter', T.String), optional('provider', T.String), mutuallyExclusive('cn', 'filter'), atLeastOneOf('cn', 'filter')),
      handler: async (ctx) => {
        const g = group(deps.app.state, ctx);
        await run(deps, ctx, { type: 'RemoveLdapGroupLink', group_id: g.id, cn: ctx.params.cn ?? null, filter: ctx.params.filter ?? null, provider: ctx.params.provider ?? null });
        return noContent();
      },
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id/ldap_group_links/:cn',
      handler: async (ctx) => {
        const g = group(deps.app.state, ctx);
        await run(deps, ctx, { type: 'RemoveLdapGroupLink', group_id: g.id, cn: String(ctx.routeParams['cn']) });
        return noContent();
      },
    }),
    route({
      method: 'DELETE',
      path: '/groups/:id/ldap_group_links/:provider/:cn',
      handler: async (ctx) => {
        const g = group(deps.app.state, ctx);
        await run(deps, ctx, { type: 'RemoveLdapGroupLink', group_id: g.id, cn: String(ctx.routeParams['cn']), provider: String(ctx.routeParams['provider']) });
        return noContent();
      },
    }),
    route({
      method: 'POST',
      path: '/groups/:id/ldap_sync',
      params: schema(requires('entries', T.JSON)),
      handler: async (ctx) => {
        const state = deps.app.state;
        const g = group(state, ctx);
        const entries = ctx.params.entries;
        if (!Array.isArray(entries)) throw ApiError.error(400, 'entries is invalid');
        const directory = entries.map((raw) => {
          const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
          const users = Array.isArray(entry['users']) ? (entry['users'] as unknown[]) : [];
          const user_ids = users
            .map((u) => (typeof u === 'number' ? findUser(state.users, u) : typeof u === 'string' ? (/^\d+$/.test(u) ? findUser(state.users, Number(u)) : findUserByUsername(state.users, u)) : undefined))
            .filter((u): u is User => u !== undefined)
            .map((u) => u.id);
          return { provider: String(entry['provider'] ?? ''), cn: typeof entry['cn'] === 'string' ? entry['cn'] : null, filter: typeof entry['filter'] === 'string' ? entry['filter'] : null, user_ids };
        });
        const done = await run(deps, ctx, { type: 'SyncLdapGroup', group_id: g.id, directory });
        const count = (type: string) => done.events.filter((e) => e.type === type).length;
        return ok({ added: count('MemberAdded'), updated: count('MemberAccessLevelChanged'), removed: count('MemberRemoved') });
      },
    }),
  ];
};

const projectShareRoutes = (deps: ApiDeps): RouteDef[] => [
  route({
    method: 'POST',
    path: '/projects/:id/share',
    params: schema(requires('group_id', T.Integer), requires('group_access', T.Integer, { values: [10, 20, 30, 40] }), optional('expires_at', T.Date)),
    handler: async (ctx) => {
      const state = deps.app.state;
      const project = orThrow(findReadableProject(state, ctx, String(ctx.routeParams['id'])));
      const done = await run(deps, ctx, { type: 'ShareProject', project_id: project.id, group_id: ctx.params.group_id!, group_access: ctx.params.group_access!, expires_at: ctx.params.expires_at ?? null });
      const link = linkBetween(done.state.members, 'Project', project.id, ctx.params.group_id!)!;
      return created(projectGroupLinkEntity(link));
    },
  }),
  route({
    method: 'DELETE',
    path: '/projects/:id/share/:group_id',
    params: schema(requires('group_id', T.Integer)),
    handler: async (ctx) => {
      const project = orThrow(findReadableProject(deps.app.state, ctx, String(ctx.routeParams['id'])));
      await run(deps, ctx, { type: 'UnshareProject', project_id: project.id, group_id: ctx.params.group_id! });
      return noContent();
    },
  }),
];

// ---------------------------------------------------------------------------------------------------------------
// Audit (administrators; see README "Membership audit")

/** The event store behind the application (the audit reads the log itself). */
const storeOf = (deps: ApiDeps): EventStore => {
  const withStore = deps as ApiDeps & { store?: EventStore };
  return withStore.store ?? (deps.app as unknown as { options: { store: EventStore } }).options.store;
};

const auditRoutes = (deps: ApiDeps): RouteDef[] => [
  route({
    method: 'GET',
    path: '/audit/membership_events',
    admin: true,
    params: schema(optional('user_id', T.Integer), optional('group_id', T.String), optional('project_id', T.String), optional('include_descendants', T.Boolean, { default: false }), optional('since', T.DateTime), optional('until', T.DateTime), optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] })),
    handler: async (ctx) => {
      const state = deps.app.state;
      const groupId = ctx.params.group_id ? orThrow(findReadableGroup(state, ctx, ctx.params.group_id)).id : undefined;
      const projectId = ctx.params.project_id ? orThrow(findReadableProject(state, ctx, ctx.params.project_id)).id : undefined;
      const rows = await membershipHistory(storeOf(deps), {
        ...(ctx.params.user_id !== undefined && ctx.params.user_id !== null ? { userId: ctx.params.user_id } : {}),
        ...(groupId !== undefined ? { groupId } : {}),
        ...(projectId !== undefined ? { projectId } : {}),
        ...(ctx.params.include_descendants ? { includeDescendants: { state } } : {}),
        ...(ctx.params.since ? { since: ctx.params.since } : {}),
        ...(ctx.params.until ? { until: ctx.params.until } : {}),
      });
      return paginate(ctx, { count: () => rows.length, slice: (o, l) => rows.slice(o, o + l) });
    },
  }),
  ...(['groups', 'projects'] as const).map((kind) =>
    route({
      method: 'GET',
      path: `/audit/${kind}/:id/members`,
      admin: true,
      params: schema(requires('at', T.DateTime), optional('page', T.Integer, { default: 1 }), optional('per_page', T.Integer, { default: 20, exceptValues: [0] })),
      handler: async (ctx) => {
        const state = deps.app.state;
        const id = String(ctx.routeParams['id']);
        // A source deleted since is still answerable by id.
        const sourceId = kind === 'groups' ? (findGroupByIdOrPath(state.groups, id)?.id ?? (/^\d+$/.test(id) ? Number(id) : -1)) : (findProjectByIdOrPath(state.projects, id)?.id ?? (/^\d+$/.test(id) ? Number(id) : -1));
        const rows = await membersAsOf(storeOf(deps), { type: kind === 'groups' ? 'Namespace' : 'Project', id: sourceId }, ctx.params.at!);
        if (rows === null) throw ApiError.domain(notFound(kind === 'groups' ? 'Group' : 'Project'));
        return paginate(ctx, { count: () => rows.length, slice: (o, l) => rows.slice(o, o + l) });
      },
    }),
  ),
];

/**
 * Makes expiry exact at every moment: when a membership or share has reached its `expires_at` (by the injected
 * clock) and `ExpireMemberships` has not recorded it yet, runs it (as the system) before the request is served.
 * Cheap otherwise (the earliest expiry is memoized per projection version). The server may call this from its
 * request pipeline for every route, and should also run `ExpireMemberships` periodically.
 */
const swept = new WeakMap<object, string>();
export const sweepExpiredMemberships = async (deps: ApiDeps): Promise<void> => {
  const members = deps.app.state.members;
  const day = today(deps);
  const next = nextExpiry(members);
  if (next === null || next > day || swept.get(members as unknown as object) === day) return;
  const result = await deps.app.execute({ userId: null, origin: 'system' }, { type: 'ExpireMemberships' });
  if (result._tag === 'Right') swept.set(result.right.state.members as unknown as object, day);
};

/** Every membership route, in declaration order (`members/all` and `approve_all` before `members/:user_id`). */
export const memberRoutes = (deps: ApiDeps): RouteDef[] => {
  const group = memberRoutesFor(deps, 'groups');
  const project = memberRoutesFor(deps, 'projects');
  return [...groupOnlyRoutes(deps), ...group, ...project, ...projectShareRoutes(deps), ...auditRoutes(deps)].map((def) => ({
    ...def,
    handler: async (ctx: Parameters<typeof def.handler>[0]) => {
      await sweepExpiredMemberships(deps);
      return def.handler(ctx);
    },
  }));
};

