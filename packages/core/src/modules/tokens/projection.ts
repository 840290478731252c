/**
 * Access tokens. Only SHA-256 digests of token values are stored (computed by the adapter that generated
 * the value and showed it once); authentication looks tokens up by digest.
 */
import { emptyTable, type Table } from '../../kernel/table.js';

export const PERSONAL_SCOPES = ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'read_registry', 'write_registry', 'sudo'] as const;

export type AccessTokenKind = 'personal' | 'impersonation' | 'project' | 'group';

export interface AccessToken {
  readonly id: number;
  readonly kind: AccessTokenKind;
  readonly user_id: number;
  readonly name: string;
  readonly scopes: readonly string[];
  readonly created_at: string;
  /** "YYYY-MM-DD" or null; the token works through that day (UTC). */
  readonly expires_at: string | null;
  readonly revoked: boolean;
  readonly token_digest: string;
  /** Project and group access tokens: the resource their bot user belongs to, and its access level. */
  readonly resource_type: 'project' | 'group' | null;
  readonly resource_id: number | null;
  readonly access_level: number | null;
  /** Who created it: for impersonation tokens, the administrator acting through it. */
  readonly created_by_id: number | null;
  /** When it last authenticated a request, kept to the day (`AccessTokenUsed`); absent: never. */
  readonly last_used_at?: string | null;
}

export interface OAuthToken {
  readonly id: number;
  readonly user_id: number;
  readonly scopes: readonly string[];
  readonly token_digest: string;
  readonly refresh_digest: string;
  readonly created_at: string;
  /** Seconds from `created_at`. */
  readonly expires_in: number;
  readonly revoked: boolean;
}

export interface TokensSlice {
  readonly byId: Table<AccessToken>;
  readonly oauthById: Table<OAuthToken>;
  /** Digest → "pat:<id>" | "oauth:<id>" | "refresh:<id>". */
  readonly byDigest: Table<string>;
}

export const initialTokens = (): TokensSlice => ({ byId: emptyTable(), oauthById: emptyTable(), byDigest: emptyTable() });
