/** What the SAML/SCIM module decides. Token values are generated and hashed by the adapter. */

/** The SCIM attributes a PATCH or PUT may change (already mapped from SCIM paths by the adapter). */
export interface ScimChanges {
  readonly extern_uid?: string;
  readonly user_name?: string;
  readonly email?: string;
  readonly name?: string;
  readonly given_name?: string | null;
  readonly family_name?: string | null;
  readonly active?: boolean;
}

export type ScimCommand =
  | {
      readonly type: 'ConfigureSamlProvider';
      readonly group_id: number;
      readonly enabled?: boolean;
      readonly sso_url?: string;
      readonly certificate_fingerprint?: string;
      readonly enforced_sso?: boolean;
      readonly default_membership_role?: number;
    }
  | { readonly type: 'RotateScimToken'; readonly group_id: number; readonly token_digest: string }
  | {
      readonly type: 'ProvisionScimIdentity';
      readonly group_id: number;
      readonly extern_uid: string;
      readonly user_name: string;
      readonly email: string;
      readonly name: string;
      readonly given_name: string | null;
      readonly family_name: string | null;
      readonly active: boolean;
    }
  | {
      readonly type: 'UpdateScimIdentity';
      readonly group_id: number;
      readonly extern_uid: string;
      readonly changes: ScimChanges;
      /**
       * A SCIM PATCH: only the first of EE `update_scim_user`'s branches that applies is run (deprovision, else
       * reprovision, else the externalId, else the user's attributes); without it (our PUT) every change applies.
       */
      readonly exclusive?: boolean;
    }
  | { readonly type: 'DeleteScimIdentity'; readonly group_id: number; readonly extern_uid: string };
