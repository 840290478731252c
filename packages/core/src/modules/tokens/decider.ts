/** The tokens module's decisions: personal, impersonation, project and group access tokens, and OAuth tokens. */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { badRequest, forbidden, notFound, unauthorized, type DomainError } from '../../kernel/domain-error.js';
import type { Issued } from '../../kernel/decider.js';
import type { Sequences } from '../../kernel/sequences.js';
import { authorizeAdmin, authorizeGroup, authorizeProject, isAdmin } from '../access/abilities.js';
import { findGroup } from '../groups/queries.js';
import { memberAdded, removeMembershipsOfUser } from '../members/builders.js';
import type { MemberEvent } from '../members/events.js';
import type { MembershipView } from '../members/projection.js';
import { findProject } from '../projects/queries.js';
import { AccessLevel } from '../shared/access.js';
import { dayOf, Errors, isRubyBlank, MAX_NAME } from '../shared/validation.js';
import type { UserEvent } from '../users/events.js';
import { userCreated, userDeleted } from '../users/builders.js';
import { findUser, findUserByUsername } from '../users/queries.js';
import type { TokenCommand } from './commands.js';
import type { TokenEvent } from './events.js';
import type { TokensSlice } from './projection.js';
import { findAccessToken, findTokenByDigest, tokenUseDue } from './queries.js';

/** What token decisions read. */
export type TokensView = MembershipView & { readonly sequences: Sequences; readonly tokens: TokensSlice };

type Emitted = TokenEvent | UserEvent | MemberEvent;

const requireAdmin = authorizeAdmin;

/**
 * PersonalAccessToken's `validates :name, presence: true` and `validates :scopes, presence: true`; the name is capped
 * like every other name (the 14.7 model has no limit; see decisions), then its expiry.
 */
const validateToken = (name: string, scopes: readonly string[], expiresAt: string | null, at: string): E.Either<DomainError, void> =>
  new Errors()
    .check(!isRubyBlank(name), 'name', "can't be blank")
    .maxLength('name', name, MAX_NAME)
    .check(scopes.length > 0, 'scopes', "can't be blank")
    .check(expiresAt === null || expiresAt >= dayOf(at), 'expires_at', 'cannot be a date in the past')
    .toEither(undefined);

/** Resource tokens need maintainer access to their project (owner of their group) to be managed. */
const requireResourceAdmin = (state: TokensView, actorId: number | null, type: 'project' | 'group', id: number): E.Either<DomainError, void> => {
  if (type === 'project') {
    const project = findProject(state.projects, id);
    return project ? authorizeProject(state, actorId, 'admin_resource_access_tokens', project, undefined) : E.left(notFound('Project'));
  }
  const group = findGroup(state.groups, id);
  return group ? authorizeGroup(state, actorId, 'admin_resource_access_tokens', group, undefined) : E.left(notFound('Group'));
};

/** `project_5_bot`, then `project_5_bot1`, … as the platform uniquifies bot usernames. */
const botUsername = (state: TokensView, type: 'project' | 'group', id: number): string => {
  const base = `${type}_${id}_bot`;
  for (let suffix = 0; ; suffix++) {
    const candidate = suffix === 0 ? base : `${base}${suffix}`;
    if (!findUserByUsername(state.users, candidate)) return candidate;
  }
};

/** A new OAuth access token (with its refresh token), drawing its id from the oauth sequence. */
const oauthTokenIssued = (
  state: TokensView,
  token: { readonly user_id: number; readonly scopes: readonly string[]; readonly token_digest: string; readonly refresh_digest: string; readonly expires_in: number },
  at: string,
): Emitted => ({ type: 'OAuthTokenIssued', data: { ...token, id: state.sequences.oauth + 1, scopes: [...token.scopes], created_at: at } });

export const decide = (issued: Issued<TokenCommand>, state: TokensView): E.Either<DomainError, readonly Emitted[]> => {
  const { command, at, actor } = issued;
  switch (command.type) {
    case 'CreatePersonalAccessToken':
      return pipe(
        requireAdmin(state, actor.userId),
        E.chain(() => (findUser(state.users, command.user_id) ? E.right(undefined) : E.left(notFound('User')))),
        E.chain(() => validateToken(command.name, command.scopes, command.expires_at, at)),
        E.map((): Emitted[] => [
          {
            type: 'AccessTokenCreated',
            data: {
              id: state.sequences.token + 1,
              kind: command.impersonation ? 'impersonation' : 'personal',
              user_id: command.user_id,
              name: command.name,
              scopes: [...command.scopes],
              created_at: at,
              expires_at: command.expires_at,
              token_digest: command.token_digest,
              resource_type: null,
              resource_id: null,
              access_level: null,
              created_by_id: actor.userId,
            },
          },
        ]),
      );
    case 'RecordAccessTokenUse': {
      // Off the request path, like `last_activity_on`: a token gone, revoked or used within the day writes nothing.
      const token = findAccessToken(state.tokens, command.id);
      return E.right(token && !token.revoked && tokenUseDue(token, at) ? [{ type: 'AccessTokenUsed', data: { id: token.id, user_id: token.user_id, at } }] : []);
    }
    case 'RevokePersonalAccessToken': {
      const token = findAccessToken(state.tokens, command.id);
      const matches =
        token &&
        (command.user_id === undefined || token.user_id === command.user_id) &&
        (command.impersonation === undefined || (token.kind === 'impersonation') === command.impersonation) &&
        (token.kind === 'personal' || token.kind === 'impersonation');
      if (!token || !matches) return E.left(notFound(command.impersonation ? 'Impersonation Token' : 'Personal Access Token'));
      // Owners revoke their own tokens; administrators revoke anyone's.
      if (actor.userId !== null && actor.userId !== token.user_id && !isAdmin(state, actor.userId)) return E.left(forbidden());
      // `token.revoke!` is `update!(revoked: true)`: on a revoked token it succeeds and changes nothing.
      if (token.revoked) return E.right([]);
      return E.right([{ type: 'AccessTokenRevoked', data: { id: token.id, user_id: token.user_id, at } }]);
    }
    case 'CreateResourceAccessToken':
      return pipe(
        requireResourceAdmin(state, actor.userId, command.resource_type, command.resource_id),
        // ResourceAccessTokens::CreateService: a token's own bot may not mint more (ProjectPolicy's
        // `project_bot_access` prevents `create_resource_access_tokens`); the service's refusal is a 400.
        E.chain(() =>
          actor.userId !== null && findUser(state.users, actor.userId)?.bot
            ? E.left(badRequest(`User does not have permission to create ${command.resource_type} access token`))
            : E.right(undefined),
        ),
        // A project has no Owner members: the bot's membership would be invalid, and the service says so.
        E.chain(() =>
          command.resource_type === 'project' && command.access_level > AccessLevel.MAINTAINER
            ? E.left(badRequest('Could not provision owner access to project access token'))
            : E.right(undefined),
        ),
        E.chain(() => validateToken(command.name, command.scopes, command.expires_at, at)),
        E.map((): Emitted[] => {
          const botId = state.sequences.user + 1;
          const username = botUsername(state, command.resource_type, command.resource_id);
          return [
            userCreated(
              state,
              { username, name: command.name, email: `${username}@noreply.${command.email_domain}`, bot: command.resource_type === 'project' ? 'project_bot' : 'group_bot' },
              at,
              actor.userId,
            ),
            memberAdded(state, {
              source_type: command.resource_type === 'project' ? 'Project' : 'Namespace',
              source_id: command.resource_id,
              user_id: botId,
              access_level: command.access_level,
              expires_at: command.expires_at,
              at,
              created_by_id: actor.userId,
            }),
            {
              type: 'AccessTokenCreated',
              data: {
                id: state.sequences.token + 1,
                kind: command.resource_type,
                user_id: botId,
                name: command.name,
                scopes: [...command.scopes],
                created_at: at,
                expires_at: command.expires_at,
                token_digest: command.token_digest,
                resource_type: command.resource_type,
                resource_id: command.resource_id,
                access_level: command.access_level,
                created_by_id: actor.userId,
              },
            },
          ];
        }),
      );
    case 'RevokeResourceAccessToken':
      return pipe(
        requireResourceAdmin(state, actor.userId, command.resource_type, command.resource_id),
        E.chain(() => {
          const token = findAccessToken(state.tokens, command.id);
          // A revoked one is gone with its bot (the platform deletes the bot, and its tokens with it).
          if (!token || token.revoked || token.resource_type !== command.resource_type || token.resource_id !== command.resource_id) {
            return E.left(notFound(command.resource_type === 'project' ? 'Project Access Token' : 'Group Access Token'));
          }
          // Revoking a resource token removes its bot user from the resource and deletes the bot, as the platform does.
          return E.right<DomainError, Emitted[]>([
            { type: 'AccessTokenRevoked' as const, data: { id: token.id, user_id: token.user_id, at } },
            ...removeMembershipsOfUser(state, token.user_id, at),
            userDeleted(token.user_id, at),
          ]);
        }),
      );
    case 'IssueOAuthToken': {
      const user = findUser(state.users, command.user_id);
      if (!user) return E.left(unauthorized);
      return E.right([
        oauthTokenIssued(state, { user_id: user.id, scopes: command.scopes, token_digest: command.token_digest, refresh_digest: command.refresh_digest, expires_in: command.expires_in }, at),
        { type: 'UserSignedIn', data: { id: user.id, at } },
      ]);
    }
    case 'RefreshOAuthToken': {
      const match = findTokenByDigest(state.tokens, command.refresh_digest);
      if (!match || match.kind !== 'refresh' || match.token.revoked) return E.left(unauthorized);
      const previous = match.token;
      return E.right([
        { type: 'OAuthTokenRevoked', data: { id: previous.id, user_id: previous.user_id, at } },
        oauthTokenIssued(state, { user_id: previous.user_id, scopes: previous.scopes, token_digest: command.token_digest, refresh_digest: command.new_refresh_digest, expires_in: command.expires_in }, at),
      ]);
    }
  }
};

