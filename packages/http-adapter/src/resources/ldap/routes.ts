/** LDAP group links of a group (ee/lib/api/ldap_group_links.rb) and the directory sync that applies them. */
import { canAdminMembers, findUser, findUserByUsername, forbidden, ldapLinksOf, type User } from '@forgefold/core';
import { ApiError, created, noContent, ok, route, type AnyRouteDef } from '../../http/index.js';
import { today, viewerId, type ApiDeps } from '../../app/deps.js';
import { commandRoute, groupOfRoute } from '../../app/routes.js';
import { ldapGroupLinkEntity } from './entities.js';
import { addParams, removeParams, syncParams } from './params.js';

export const ldapRoutes = (deps: ApiDeps): AnyRouteDef[] => [
  route({
    method: 'GET',
    path: '/groups/:id/ldap_group_links',
    handler: (ctx) => {
      const state = deps.app.state;
      const found = groupOfRoute(ctx, state);
      if (found._tag === 'Left') return found.left;
      const group = found.right;
      if (!canAdminMembers(state, viewerId(ctx), { group }, today(deps))) return forbidden();
      return ok([...ldapLinksOf(state.members, group.id)].map(ldapGroupLinkEntity));
    },
  }),
  commandRoute(deps, {
    method: 'POST',
    path: '/groups/:id/ldap_group_links',
    params: addParams,
    find: groupOfRoute,
    command: ({ params }, group) => ({ type: 'AddLdapGroupLink', group_id: group.id, cn: params.cn ?? null, filter: params.filter ?? null, group_access: params.group_access, provider: params.provider ?? '' }),
    present: (_done, { params }, group) =>
      created(ldapGroupLinkEntity({ group_id: group.id, cn: params.cn ?? null, filter: params.cn ? null : (params.filter ?? null), group_access: params.group_access, provider: params.provider ?? '' })),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/groups/:id/ldap_group_links',
    params: removeParams,
    find: groupOfRoute,
    command: ({ params }, group) => ({ type: 'RemoveLdapGroupLink', group_id: group.id, cn: params.cn ?? null, filter: params.filter ?? null, provider: params.provider ?? null }),
    present: () => noContent(),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/groups/:id/ldap_group_links/:cn',
    find: groupOfRoute,
    command: (ctx, group) => ({ type: 'RemoveLdapGroupLink', group_id: group.id, cn: String(ctx.routeParams['cn']) }),
    present: () => noContent(),
  }),
  commandRoute(deps, {
    method: 'DELETE',
    path: '/groups/:id/ldap_group_links/:provider/:cn',
    find: groupOfRoute,
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
