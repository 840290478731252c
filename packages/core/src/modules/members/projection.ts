/**
 * The memberships projection: one row per membership (like the platform's `members` table), indexed
 * by source, by (source, user) and by user, so that every lookup is a key access.
 */
import { emptyTable, type Table } from '../../kernel/table.js';

/** The platform's polymorphic source: a group (namespace) or a project. */
export type SourceType = 'Namespace' | 'Project';
export type MembershipState = 'active' | 'awaiting';

export interface Member {
  /** Member row id: the order memberships were created in. */
  readonly id: number;
  readonly source_type: SourceType;
  readonly source_id: number;
  /** Null for an e-mail invitation that no account has accepted yet. */
  readonly user_id: number | null;
  readonly invite_email: string | null;
  readonly access_level: number;
  /** "YYYY-MM-DD" or null. */
  readonly expires_at: string | null;
  readonly state: MembershipState;
  readonly override: boolean;
  readonly ldap: boolean;
  readonly created_at: string;
  readonly updated_at: string;
  readonly created_by_id: number | null;
}

export interface MembersSlice {
  readonly byId: Table<Member>;
  /** Source key ("Namespace:5") → member id → user id (or 0 for invitations). Iterates in member-id order. */
  readonly bySource: Table<Table<number>>;
  /** "Namespace:5:12" (source and user) → member id. */
  readonly bySourceUser: Table<number>;
  /** User id → member id → source key. */
  readonly byUser: Table<Table<string>>;
}

export const initialMembers = (): MembersSlice => ({ byId: emptyTable(), bySource: emptyTable(), bySourceUser: emptyTable(), byUser: emptyTable() });

export const sourceKey = (type: SourceType, id: number): string => `${type}:${id}`;
export const sourceUserKey = (type: SourceType, id: number, userId: number): string => `${type}:${id}:${userId}`;
