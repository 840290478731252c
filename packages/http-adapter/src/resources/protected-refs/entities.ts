/** `Entities::ProtectedBranch`, `Entities::ProtectedTag` and their access levels, with EE's fields. */
import { humanAccess, type ProtectedBranch, type ProtectedTag, type RefAccessLevel } from '@forgefold/core';

const HUMAN_REF_ACCESS: Record<number, string> = { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers' };

/** `Entities::ProtectedRefAccess` with EE's `user_id`/`group_id` (role levels only here). */
const refAccessEntity = (level: RefAccessLevel) => ({
  access_level: level.access_level,
  access_level_description: HUMAN_REF_ACCESS[level.access_level] ?? humanAccess(level.access_level),
  user_id: null,
  group_id: null,
});

/** `Entities::ProtectedBranch` with EE's fields. */
export const protectedBranchEntity = (rule: ProtectedBranch) => ({
  id: rule.id,
  name: rule.name,
  push_access_levels: rule.push_access_levels.map(refAccessEntity),
  merge_access_levels: rule.merge_access_levels.map(refAccessEntity),
  allow_force_push: rule.allow_force_push,
  unprotect_access_levels: rule.unprotect_access_levels.map(refAccessEntity),
  code_owner_approval_required: rule.code_owner_approval_required,
});

/** `Entities::ProtectedTag`. */
export const protectedTagEntity = (rule: ProtectedTag) => ({
  name: rule.name,
  create_access_levels: rule.create_access_levels.map(refAccessEntity),
});

