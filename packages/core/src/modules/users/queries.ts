import { peekField, tableGet, tablePeek, tableValues } from '../../kernel/table.js';
import { identityKey, type User, type UsersSlice } from './projection.js';
import { fuzzyMatches } from '../shared/pattern.js';
import { isRubyBlank } from '../shared/validation.js';

export const findUser = (users: UsersSlice, id: number): User | undefined => tableGet(users.byId, id);

export const findUserByUsername = (users: UsersSlice, username: string): User | undefined => {
  const id = tableGet(users.byUsername, username.toLowerCase());
  return id === undefined ? undefined : findUser(users, id);
};

/**
 * Whether a user holds `username`, read without drafting (`tablePeek`): for decisions, which may be handed a batch's
 * draft. The same answer as `findUserByUsername(…) !== undefined`.
 */
export const usernameTaken = (users: UsersSlice, username: string): boolean => {
  const id = tablePeek(peekField(users, 'byUsername'), username.toLowerCase());
  return id !== undefined && tablePeek(peekField(users, 'byId'), id) !== undefined;
};

export const findUserByEmail = (users: UsersSlice, email: string): User | undefined => {
  const id = tableGet(users.byEmail, email.toLowerCase());
  return id === undefined ? undefined : findUser(users, id);
};

/** Sudo and the users API accept an id (all digits) or a username (case-insensitive). */
export const findUserByIdOrUsername = (users: UsersSlice, value: string): User | undefined =>
  /^\d+$/.test(value) ? findUser(users, Number(value)) : findUserByUsername(users, value);

export const listUsers = (users: UsersSlice): Generator<User> => tableValues(users.byId);

/** The query `User.search` works with: one leading "@" dropped, lower-cased; blank finds no one. */
const searchTerm = (query: string): string => (query.startsWith('@') ? query.slice(1) : query).toLowerCase();

/**
 * `User.search` (14.7, `search_with_secondary_emails`): a fuzzy match on name or username, or the e-mail exactly
 * (no secondary addresses are kept here). A blank query (after the "@") matches no one.
 */
export const matchesUserSearch = (user: User, query: string): boolean => {
  const term = searchTerm(query);
  if (isRubyBlank(term)) return false;
  return fuzzyMatches(user.name, term) || fuzzyMatches(user.username, term) || user.email.toLowerCase() === term;
};

/** `User.search`'s order: a name equal to the query first, then a username, then an e-mail, then the rest; by name within. */
export const compareUserSearch = (query: string) => {
  const term = searchTerm(query);
  const rank = (user: User): number => (user.name === term ? 0 : user.username === term ? 1 : user.email === term ? 2 : 3);
  return (a: User, b: User): number => rank(a) - rank(b) || a.name.localeCompare(b.name, 'en') || b.id - a.id;
};

/** The owner of a personal namespace. */
export const findUserByNamespace = (users: UsersSlice, namespaceId: number): User | undefined => {
  const id = tableGet(users.byNamespace, namespaceId);
  return id === undefined ? undefined : findUser(users, id);
};

/** The user holding an identity (`Identity.with_extern_uid(provider, extern_uid)`, case-insensitive). */
export const findUserByIdentity = (users: UsersSlice, provider: string, externUid: string): User | undefined => {
  const id = tableGet(users.byIdentity, identityKey(provider, externUid));
  return id === undefined ? undefined : findUser(users, id);
};

/**
 * `User#ensure_user_rights_and_limits`: an external account has no personal projects and creates no group, whatever
 * its stored settings say; a bot creates no group either.
 */
export const projectsLimitOf = (user: User): number => (user.external === true ? 0 : (user.projects_limit ?? 100000));
export const canCreateGroupOf = (user: User): boolean => user.bot === null && user.external !== true && (user.can_create_group ?? true);

/**
 * `User#project_bot?`: the bot of a project or of a group access token. The platform has one user type for both
 * (`project_bot`; `ResourceAccessTokens::CreateService` and `HasUserType` know no group bot); we keep which resource
 * minted it, so every rule that asks `project_bot?` counts both kinds.
 */
export const isProjectBot = (user: User | undefined): boolean => user?.bot === 'project_bot' || user?.bot === 'group_bot';
