/** User events other modules emit (bot users behind resource tokens, accounts provisioned by SCIM). */
import type { Sequences } from '../../kernel/sequences.js';
import type { UserEvent } from './events.js';
import type { SettingsSlice } from '../settings/projection.js';
import { settingBoolean, settingInteger, settingString } from '../settings/queries.js';
import type { BotKind } from './projection.js';

type UserCreated = Extract<UserEvent, { type: 'UserCreated' }>;

/** A new account, drawing its id and its personal namespace's id from the sequences. */
export const userCreated = (
  state: { readonly sequences: Sequences; readonly settings?: SettingsSlice },
  fields: {
    readonly username: string;
    readonly name: string;
    readonly email: string;
    readonly public_email?: string | null;
    readonly is_admin?: boolean;
    readonly bot?: BotKind | null;
    readonly password_digest?: string | null;
    readonly projects_limit?: number;
    readonly can_create_group?: boolean;
    readonly external?: boolean;
  },
  at: string,
  createdById: number | null,
): UserCreated => ({
  type: 'UserCreated',
  data: {
    id: state.sequences.user + 1,
    username: fields.username,
    name: fields.name,
    email: fields.email,
    public_email: fields.public_email ?? null,
    is_admin: fields.is_admin ?? false,
    bot: fields.bot ?? null,
    password_digest: fields.password_digest ?? null,
    namespace_id: state.sequences.namespace + 1,
    created_at: at,
    created_by_id: createdById,
    ...accountSettings(state.settings, fields),
  },
});

/**
 * A new account's settings: those asked for, else the instance's (`default_projects_limit`; `user_default_external`
 * unless the e-mail matches `user_default_internal_regex`), recorded only where they differ from the defaults.
 */
const accountSettings = (
  settings: SettingsSlice | undefined,
  fields: { readonly email: string; readonly projects_limit?: number; readonly can_create_group?: boolean; readonly external?: boolean },
): { projects_limit?: number; can_create_group?: boolean; external?: boolean } => {
  const limit = fields.projects_limit ?? (settings ? settingInteger(settings, 'default_projects_limit') : 100000);
  const canCreateGroup = fields.can_create_group ?? true;
  const external = fields.external ?? (settings !== undefined && settingBoolean(settings, 'user_default_external') && !matchesInternal(settingString(settings, 'user_default_internal_regex'), fields.email));
  return { ...(limit !== 100000 ? { projects_limit: limit } : {}), ...(canCreateGroup ? {} : { can_create_group: false }), ...(external ? { external: true } : {}) };
};

const matchesInternal = (pattern: string | null, email: string): boolean => {
  if (!pattern) return false;
  try {
    return new RegExp(pattern).test(email);
  } catch {
    return false;
  }
};

export const userDeleted = (id: number, at: string): UserEvent => ({ type: 'UserDeleted', data: { id, at } });

export const userUpdated = (id: number, at: string, changes: { readonly username?: string; readonly name?: string; readonly email?: string }): UserEvent => ({
  type: 'UserUpdated',
  data: { id, updated_at: at, ...changes },
});
