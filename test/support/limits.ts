/**
 * The platform's model limits as an invariant over the whole state: no stored name, path, username, e-mail,
 * description or identifier is longer than its model allows (issue 16). Counted in characters, as Ruby does.
 */
import { accessTokensOf, ldapLinksOf, listGroups, listProjects, listUsers, tableValues, type State } from '@forgefold/core';

const chars = (value: string | null | undefined): number => (value === null || value === undefined ? 0 : [...value].length);

/** Every stored string over its limit, as "kind id field (length)"; empty when the state keeps to the limits. */
export function overLongStrings(state: State): string[] {
  const found: string[] = [];
  const check = (kind: string, id: number | string, fields: Record<string, string | null | undefined>, limit = 255) => {
    for (const [field, value] of Object.entries(fields)) if (chars(value) > limit) found.push(`${kind} ${id} ${field} (${chars(value)})`);
  };
  for (const user of listUsers(state.users)) check('user', user.id, { name: user.name, username: user.username, email: user.email, public_email: user.public_email });
  for (const group of listGroups(state.groups)) {
    check('group', group.id, { name: group.name, path: group.path, description: group.description });
    for (const link of ldapLinksOf(state.members, group.id)) check('ldap link', group.id, { cn: link.cn, filter: link.filter, provider: link.provider });
  }
  for (const project of listProjects(state.projects)) {
    check('project', project.id, { name: project.name, path: project.path });
    check('project', project.id, { description: project.description }, 2000);
  }
  for (const token of accessTokensOf(state.tokens, () => true)) check('token', token.id, { name: token.name });
  for (const member of tableValues(state.members.byId)) check('member', member.id, { invite_email: member.invite_email });
  for (const identity of tableValues(state.scim.identities)) check('scim identity', identity.id, { extern_uid: identity.extern_uid, user_name: identity.user_name, given_name: identity.given_name, family_name: identity.family_name });
  return found;
}
