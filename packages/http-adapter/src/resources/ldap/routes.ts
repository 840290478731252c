/** LDAP group links of a group (ee/lib/api/ldap_group_links.rb) and the directory sync that applies them. */
import * as E from 'fp-ts/lib/Either.js';
import { canAdminMembers, findGroupByIdOrPath, findUser, findUserByUsername, forbidden, ldapLinksOf, notFound, type DomainError, type Group, type State, type User } from '@forgefold/core';
import { ApiError, created, noContent, ok, route, type AnyRouteDef, type HandlerContext } from '../../http/index.js';
import { today, viewerId, type ApiDeps } from '../../app/deps.js';
import { commandRoute, groupOfRoute } from '../../app/routes.js';
import { ldapGroupLinkEntity } from './entities.js';
import { addParams, removeParams, syncParams } from './params.js';

export const ldapRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  /**
   * ee/lib/api/ldap_group_links.rb looks the group up with `find_group` (no visibility check, nil when unknown) and
   * then `authorize! :admin_group, group`: anyone but an owner, of a group they cannot see or of none, gets 403.
   */
  const administeredGroup = (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, Group> => {
    const group = findGroupByIdOrPath(state.groups, String(ctx.routeParams['id']));
    return group && canAdminMembers(state, viewerId(ctx), { group }, today(deps)) ? E.right(group) : E.left(forbidden());
  };
  return [
  route({
    method: 'GET',
    path: '/groups/:id/ldap_group_links',
    handler: (ctx) => {
      const state = deps.app.state;
      const found = administeredGroup(ctx, state);
      if (E.isLeft(found)) return found.left;
      const group = found.right;
      const links = [...ldapLinksOf(state.members, group.id)];
      // ee/lib/api/ldap_group_links.rb: an empty list is a 404 with its own text.
      if (links.length === 0) return notFound(undefined, 'No linked LDAP groups found');
      return ok(links.map(ldapGroupLinkEntity));
    },
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/groups/:id/ldap_group_links',
    params: addParams,
    find: administeredGroup,
    command: ({ params }, group) => ({ type: 'AddLdapGroupLink', group_id: group.id, cn: params.cn ?? null, filter: params.filter ?? null, group_access: params.group_access, provider: params.provider ?? '' }),
    present: (_done, { params }) =>
      created(ldapGroupLinkEntity({ cn: params.cn ?? null, filter: params.cn ? null : (params.filter ?? null), group_access: params.group_access, provider: params.provider ?? '' })),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/groups/:id/ldap_group_links',
    params: removeParams,
    find: administeredGroup,
    command: ({ params }, group) => ({ type: 'RemoveLdapGroupLink', group_id: group.id, cn: params.cn ?? null, filter: params.filter ?? null, provider: params.provider ?? null }),
    present: () => noContent(),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/groups/:id/ldap_group_links/:cn',
    find: administeredGroup,
    command: (ctx, group) => ({ type: 'RemoveLdapGroupLink', group_id: group.id, cn: String(ctx.routeParams['cn']) }),
    present: () => noContent(),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/groups/:id/ldap_group_links/:provider/:cn',
    find: administeredGroup,
    command: (ctx, group) => ({ type: 'RemoveLdapGroupLink', group_id: group.id, cn: String(ctx.routeParams['cn']), provider: String(ctx.routeParams['provider']) }),
    present: () => noContent(),
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/groups/:id/ldap_sync',
    params: syncParams,
    find: groupOfRoute,
    command: (ctx, group) => {
      const state = deps.app.state;
      const entries = ctx.params.entries;
      if (!Array.isArray(entries)) throw ApiError.error(400, 'entries is invalid');
      const directory = entries.map((raw: unknown) => {
        const entry: Record<string, unknown> = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? { ...raw } : {};
        const users: unknown[] = Array.isArray(entry['users']) ? entry['users'] : [];
        const user_ids = users
          .map((u) => (typeof u === 'number' ? findUser(state.users, u) : typeof u === 'string' ? (/^\d+$/.test(u) ? findUser(state.users, Number(u)) : findUserByUsername(state.users, u)) : undefined))
          .filter((u): u is User => u !== undefined)
          .map((u) => u.id);
        return { provider: String(entry['provider'] ?? ''), cn: typeof entry['cn'] === 'string' ? entry['cn'] : null, filter: typeof entry['filter'] === 'string' ? entry['filter'] : null, user_ids };
      });
      return { type: 'SyncLdapGroup', group_id: group.id, directory };
    },
    present: (done) => {
      const count = (type: string) => done.events.filter((e) => e.type === type).length;
      return ok({ added: count('MemberAdded'), updated: count('MemberAccessLevelChanged'), removed: count('MemberRemoved') });
    },
  }),
];
};
