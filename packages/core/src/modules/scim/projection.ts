/**
 * SAML single sign-on and SCIM provisioning of top-level groups: the SAML provider configuration, the SCIM
 * token digest, and the SCIM identities, indexed so that every lookup the identity providers make
 * (externalId, userName, e-mail) is a key access whatever the group's size.
 */
import { emptyTable, type Table } from '../../kernel/table.js';

export interface SamlProvider {
  /** The provider's own id (`saml_provider_id` in `group_saml_identity`). */
  readonly id: number;
  readonly group_id: number;
  readonly enabled: boolean;
  readonly sso_url: string;
  readonly certificate_fingerprint: string;
  readonly enforced_sso: boolean;
  readonly default_membership_role: number;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface ScimToken {
  readonly group_id: number;
  /** SHA-256 of the token value; the value itself was shown once and never stored. */
  readonly token_digest: string;
  readonly created_at: string;
}

export interface ScimIdentity {
  readonly id: number;
  readonly group_id: number;
  readonly user_id: number;
  /** The SCIM `id` and `externalId` (the platform's `extern_uid`). */
  readonly extern_uid: string;
  /** The identity provider's `userName`, as it sent it. */
  readonly user_name: string;
  readonly given_name: string | null;
  readonly family_name: string | null;
  /** False once deprovisioned (`active: false`): the resource stays readable, the membership is gone. */
  readonly active: boolean;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface ScimSlice {
  /** Group id → SAML provider. */
  readonly providers: Table<SamlProvider>;
  /** Group id → SCIM token. */
  readonly tokens: Table<ScimToken>;
  readonly identities: Table<ScimIdentity>;
  /** "<group>:<lower-cased extern_uid>" → identity id. */
  readonly byExternUid: Table<number>;
  /** "<group>:<lower-cased userName>" → identity id. */
  readonly byUserName: Table<number>;
  /** "<group>:<user id>" → identity id (the e-mail index goes user e-mail → user → this). */
  readonly byGroupUser: Table<number>;
  /** Group id → identity id → 1, iterating in identity-id order (the stable order paging needs). */
  readonly ofGroup: Table<Table<1>>;
  /** User id → identity id → group id. */
  readonly ofUser: Table<Table<number>>;
  /** Group id → number of identities. */
  readonly counts: Table<number>;
  readonly lastIdentityId: number;
  readonly lastProviderId: number;
}

export const initialScim = (): ScimSlice => ({
  providers: emptyTable(),
  tokens: emptyTable(),
  identities: emptyTable(),
  byExternUid: emptyTable(),
  byUserName: emptyTable(),
  byGroupUser: emptyTable(),
  ofGroup: emptyTable(),
  ofUser: emptyTable(),
  counts: emptyTable(),
  lastIdentityId: 0,
  lastProviderId: 0,
});

export const externUidKey = (groupId: number, externUid: string): string => `${groupId}:${externUid.toLowerCase()}`;
export const userNameKey = (groupId: number, userName: string): string => `${groupId}:${userName.toLowerCase()}`;
export const groupUserKey = (groupId: number, userId: number): string => `${groupId}:${userId}`;
