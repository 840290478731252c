/** The users projection: every account, with indexes by lower-cased username and e-mail. */
import { emptyTable, type Table } from '../../kernel/table.js';

/** `banned` counts as blocked wherever the platform asks `blocked?` (sign-in, block), and is lifted only by unban or unblock. */
export type UserState = 'active' | 'blocked' | 'deactivated' | 'banned';


/**
 * An uploaded avatar: the file's (sanitised) name and the SHA-256 of its bytes. The bytes live in the host's
 * upload store, addressed by that digest; the log records which file is the user's avatar.
 */
export interface Avatar {
  readonly filename: string;
  readonly sha256: string;
  readonly size: number;
}

/** The platform's avatar rules (Avatarable): at most 200 KB, and an image extension. */
export const AVATAR_MAX_BYTES = 200 * 1024;
export const AVATAR_EXTENSIONS: readonly string[] = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico', 'webp'];
export type BotKind = 'project_bot' | 'group_bot';

/** An external authentication identity (`identities` table): at most one per provider and user. */
export interface Identity {
  readonly provider: string;
  readonly extern_uid: string;
}

export interface User extends UserProfile {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly public_email: string | null;
  readonly state: UserState;
  readonly is_admin: boolean;
  /** Set for the bot users behind project and group access tokens. */
  readonly bot: BotKind | null;
  /** scrypt digest of the password ("scrypt$salt$hash"), computed by the adapter; never the password. */
  readonly password_digest: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly created_by_id: number | null;
  /** Day of the last authenticated activity ("YYYY-MM-DD"), at most one update a day. */
  readonly last_activity_on: string | null;
  readonly current_sign_in_at: string | null;
  readonly last_sign_in_at: string | null;
  /** Sign-ins (`UserSignedIn`) counted (Devise's `sign_in_count`); absent: 0. */
  readonly sign_in_count?: number;
  /** The user's personal namespace: a namespace id drawn from the same sequence as groups. */
  readonly namespace_id: number;
  /** External identities in creation order. */
  readonly identities: readonly Identity[];
  /** Absent (or null) without an upload; optional so that states folded before avatars existed stay valid. */
  readonly avatar?: Avatar | null;
  /** Personal projects allowed (absent: 100000); from `default_projects_limit` when the account was created. */
  readonly projects_limit?: number;
  /** Absent: true. */
  readonly can_create_group?: boolean;
  /** External users (absent: false); `user_default_external` when the account was created. */
  readonly external?: boolean;
}

/**
 * The profile an administrator sets through the users API (`optional_attributes`); absent means the platform's
 * defaults ('' for bio, skype, linkedin, twitter and website_url; null for note, location, organization and pronouns;
 * false for private_profile; 1 for theme_id and color_scheme_id).
 */
export interface UserProfile {
  readonly note?: string | null;
  readonly bio?: string;
  readonly location?: string | null;
  readonly skype?: string;
  readonly linkedin?: string;
  readonly twitter?: string;
  readonly website_url?: string;
  readonly organization?: string | null;
  readonly pronouns?: string | null;
  readonly private_profile?: boolean;
  readonly theme_id?: number;
  readonly color_scheme_id?: number;
}

export const PROFILE_FIELDS = ['note', 'bio', 'location', 'skype', 'linkedin', 'twitter', 'website_url', 'organization', 'pronouns', 'private_profile', 'theme_id', 'color_scheme_id'] as const;

export interface UsersSlice {
  readonly byId: Table<User>;
  readonly byUsername: Table<number>;
  readonly byEmail: Table<number>;
  /** Personal namespace id → user id. */
  readonly byNamespace: Table<number>;
  /** `identityKey(provider, extern_uid)` → user id (an extern_uid is unique per provider, case-insensitively). */
  readonly byIdentity: Table<number>;
  readonly count: number;
}

export const initialUsers = (): UsersSlice => ({ byId: emptyTable(), byUsername: emptyTable(), byEmail: emptyTable(), byNamespace: emptyTable(), byIdentity: emptyTable(), count: 0 });

export const identityKey = (provider: string, externUid: string): string => `${provider}\u0000${externUid.toLowerCase()}`;
