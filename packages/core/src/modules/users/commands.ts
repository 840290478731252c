import type { Avatar } from './projection.js';

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
      /** An upload already in the host's store (see `Avatar`). */
      readonly avatar?: Avatar;
    }
  | {
      readonly type: 'UpdateUser';
      readonly id: number;
      readonly username?: string;
      readonly name?: string;
      readonly email?: string;
      readonly public_email?: string | null;
      readonly is_admin?: boolean;
      readonly password_digest?: string;
      readonly avatar?: Avatar;
    }
  | { readonly type: 'BlockUser'; readonly id: number }
  | { readonly type: 'UnblockUser'; readonly id: number }
  | { readonly type: 'DeleteUser'; readonly id: number }
  /** Authenticated activity: updates `last_activity_on` at most once a day. */
  | { readonly type: 'RecordUserActivity'; readonly id: number };
