/** User events other modules emit (bot users behind resource tokens, accounts provisioned by SCIM). */
import type { Sequences } from '../../kernel/sequences.js';
import type { UserEvent } from './events.js';
import type { BotKind } from './projection.js';

type UserCreated = Extract<UserEvent, { type: 'UserCreated' }>;

/** A new account, drawing its id and its personal namespace's id from the sequences. */
export const userCreated = (
  state: { readonly sequences: Sequences },
  fields: { readonly username: string; readonly name: string; readonly email: string; readonly public_email?: string | null; readonly is_admin?: boolean; readonly bot?: BotKind | null; readonly password_digest?: string | null },
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
  },
});

export const userDeleted = (id: number, at: string): UserEvent => ({ type: 'UserDeleted', data: { id, at } });

export const userUpdated = (id: number, at: string, changes: { readonly username?: string; readonly name?: string; readonly email?: string }): UserEvent => ({
  type: 'UserUpdated',
  data: { id, updated_at: at, ...changes },
});
