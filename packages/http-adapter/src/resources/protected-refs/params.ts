/** Parameters of the protected tags and branches API (lib/api/protected_tags.rb, protected_branches.rb). */
import { PROTECTED_REF_ACCESS_LEVELS } from '@forgefold/core';
import { optional, requires, schema, T } from '../../http/index.js';

export const protectedBranchListParams = schema(requires('name', T.String), optional('create_access_level', T.Integer, { default: 40, values: [...PROTECTED_REF_ACCESS_LEVELS] }));

export const protectTagParams = schema(optional('search', T.String));

/** EE's `PATCH …/protected_branches/:name` (14.7): `optional_params_ee`, of which it reads `code_owner_approval_required` (default false). */
export const codeOwnerApprovalParams = schema(
  optional('unprotect_access_level', T.Integer, { values: [...PROTECTED_REF_ACCESS_LEVELS] }),
  optional('code_owner_approval_required', T.Boolean, { default: false }),
);

export const protectBranchParams = schema(
        requires('name', T.String),
        optional('push_access_level', T.Integer, { default: 40, values: [...PROTECTED_REF_ACCESS_LEVELS] }),
        optional('merge_access_level', T.Integer, { default: 40, values: [...PROTECTED_REF_ACCESS_LEVELS] }),
        optional('unprotect_access_level', T.Integer, { values: [...PROTECTED_REF_ACCESS_LEVELS] }),
        optional('allow_force_push', T.Boolean, { default: false }),
        optional('code_owner_approval_required', T.Boolean, { default: false }),
      );
