/** An external authentication identity of a user (`identities`): one per provider. */
export interface IdentityInput {
  readonly provider: string;
  readonly extern_uid: string;
}
import type { Avatar, UserProfile } from './projection.js';

/** What callers may ask of the users module. Digests are computed by the adapter: the core never sees a password. */
export type UserCommand =
  | {
      readonly type: 'CreateUser';
      readonly username: string;
      readonly name: string;
      readonly email: string;
      readonly password_digest: string | null;
      readonly is_admin?: boolean;
      readonly public_email?: string | null;
      /** `provider` + `extern_uid`: the user's identity with that provider. */
      readonly identity?: IdentityInput;
      /** An upload already in the host's store (see `Avatar`). */
      readonly avatar?: Avatar;
      readonly projects_limit?: number;
      readonly can_create_group?: boolean;
      readonly external?: boolean;
    } & UserProfile
  | {
      readonly type: 'UpdateUser';
      readonly id: number;
      readonly username?: string;
      readonly name?: string;
      readonly email?: string;
      readonly public_email?: string | null;
      readonly is_admin?: boolean;
      readonly password_digest?: string;
      /** Creates the identity with that provider, or changes its `extern_uid` (`Users::UpdateService#assign_identity`). */
      readonly identity?: IdentityInput;
      readonly avatar?: Avatar;
      readonly projects_limit?: number;
      readonly can_create_group?: boolean;
      readonly external?: boolean;
    } & UserProfile
  /** `DELETE /users/:id/identities/:provider`. */
  | { readonly type: 'DeleteUserIdentity'; readonly id: number; readonly provider: string }
  | { readonly type: 'BlockUser'; readonly id: number }
  | { readonly type: 'UnblockUser'; readonly id: number }
  /** `POST /users/:id/ban` and `/unban` (Users::BanService, Users::UnbanService). */
  | { readonly type: 'BanUser'; readonly id: number }
  | { readonly type: 'UnbanUser'; readonly id: number }
  /** `POST /users/:id/deactivate` and `/activate`. */
  | { readonly type: 'DeactivateUser'; readonly id: number }
  | { readonly type: 'ActivateUser'; readonly id: number }
  | { readonly type: 'DeleteUser'; readonly id: number }
  /** Authenticated activity: updates `last_activity_on` at most once a day. */
  | { readonly type: 'RecordUserActivity'; readonly id: number };
