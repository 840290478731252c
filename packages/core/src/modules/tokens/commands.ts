/** Token commands carry digests: the adapter generates the secret, shows it once and hashes it. */
export type TokenCommand =
  | {
      readonly type: 'CreatePersonalAccessToken';
      readonly user_id: number;
      readonly name: string;
      readonly scopes: readonly string[];
      readonly expires_at: string | null;
      readonly token_digest: string;
      readonly impersonation: boolean;
    }
  | { readonly type: 'RevokePersonalAccessToken'; readonly id: number; readonly user_id?: number; readonly impersonation?: boolean }
  /** A system command: the token authenticated a request (`last_used_at`, at most once a day). */
  | { readonly type: 'RecordAccessTokenUse'; readonly id: number }
  | {
      readonly type: 'CreateResourceAccessToken';
      readonly resource_type: 'project' | 'group';
      readonly resource_id: number;
      readonly name: string;
      readonly scopes: readonly string[];
      readonly access_level: number;
      readonly expires_at: string | null;
      readonly token_digest: string;
      /** Host name for the bot's no-reply address. */
      readonly email_domain: string;
    }
  | { readonly type: 'RevokeResourceAccessToken'; readonly resource_type: 'project' | 'group'; readonly resource_id: number; readonly id: number }
  /** Password grant: the adapter has verified the password against the user's digest. */
  | { readonly type: 'IssueOAuthToken'; readonly user_id: number; readonly scopes: readonly string[]; readonly token_digest: string; readonly refresh_digest: string; readonly expires_in: number }
  | { readonly type: 'RefreshOAuthToken'; readonly refresh_digest: string; readonly token_digest: string; readonly new_refresh_digest: string; readonly expires_in: number };
