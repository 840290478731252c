/** Decider specs of the SCIM module (SAML configuration, SCIM token, provisioning). */
import { badRequest, conflict, forbidden, notFound, preconditionFailed, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, groupCreated, memberAdded, userCreated, type Spec } from './spec.js';

const alice = userCreated(1, 'alice');
const bob = userCreated(2, 'bob');
const team = groupCreated(3, 'team', { by: 1 });
const owner = memberAdded(1, { group: 3 }, 1, 50, { by: 1 });
const FINGERPRINT = 'ab'.repeat(20);
const provider: ForgefoldEvent = {
  type: 'SamlProviderConfigured',
  data: { id: 1, group_id: 3, enabled: true, sso_url: 'https://idp.example.com/sso', certificate_fingerprint: FINGERPRINT, enforced_sso: false, default_membership_role: 30, at: AT },
};
const base = [alice, bob, team, owner, provider];
const identity = (id: number, userId: number, externUid: string, active = true): ForgefoldEvent => ({
  type: 'ScimIdentityProvisioned',
  data: { id, group_id: 3, user_id: userId, extern_uid: externUid, user_name: `${externUid}@example.com`, given_name: null, family_name: null, active, at: AT },
});
const provision = { type: 'ProvisionScimIdentity', group_id: 3, extern_uid: 'u-1', user_name: 'jane.doe@example.com', email: 'jane@example.com', name: 'Jane Doe', given_name: 'Jane', family_name: 'Doe', active: true } as const;

export const scimSpecs: Record<string, Spec> = {
  'an owner configures SAML single sign-on': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'ConfigureSamlProvider', group_id: 3, sso_url: 'https://idp.example.com/sso', certificate_fingerprint: FINGERPRINT, default_membership_role: 30 },
    then: [provider],
  },
  'configuring SAML again with the same values writes nothing': {
    given: [alice, team, owner, provider],
    as: 1,
    when: { type: 'ConfigureSamlProvider', group_id: 3, sso_url: 'https://idp.example.com/sso' },
    then: [],
  },
  'SAML needs an https URL and a fingerprint': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'ConfigureSamlProvider', group_id: 3, sso_url: 'http://idp', certificate_fingerprint: 'x' },
    error: validation({ sso_url: ['must be a valid URL using https'], certificate_fingerprint: ['is invalid'] }),
  },
  'SAML is for top-level groups': {
    given: [alice, team, owner, groupCreated(4, 'sub', { parent: 3 })],
    as: 1,
    when: { type: 'ConfigureSamlProvider', group_id: 4, sso_url: 'https://idp', certificate_fingerprint: FINGERPRINT },
    error: badRequest('SAML single sign-on and SCIM are only available for top-level groups'),
  },
  'maintainers do not configure SAML': {
    given: [alice, bob, team, owner, memberAdded(2, { group: 3 }, 2, 40)],
    as: 2,
    when: { type: 'ConfigureSamlProvider', group_id: 3, sso_url: 'https://idp', certificate_fingerprint: FINGERPRINT },
    error: forbidden(),
  },
  'a new SCIM token replaces the old one (its digest only)': {
    given: [alice, team, owner],
    as: 1,
    when: { type: 'RotateScimToken', group_id: 3, token_digest: 'f'.repeat(64) },
    then: [{ type: 'ScimTokenRotated', data: { group_id: 3, token_digest: 'f'.repeat(64), at: AT } }],
  },
  'provisioning creates the account, the membership with the default role, and the identity': {
    given: base,
    when: provision,
    then: [
      {
        type: 'UserCreated',
        data: { id: 3, username: 'jane.doe', name: 'Jane Doe', email: 'jane@example.com', public_email: null, is_admin: false, bot: null, password_digest: null, namespace_id: 103, created_at: AT, created_by_id: null },
      },
      { type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 3, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } },
      { type: 'ScimIdentityProvisioned', data: { id: 1, group_id: 3, user_id: 3, extern_uid: 'u-1', user_name: 'jane.doe@example.com', given_name: 'Jane', family_name: 'Doe', active: true, at: AT } },
    ],
  },
  'provisioning saves the e-mail stripped and lower-cased (Devise), as every path that makes an account': {
    given: base,
    when: { ...provision, email: ' Jane@Example.COM ' },
    then: [
      {
        type: 'UserCreated',
        data: { id: 3, username: 'jane.doe', name: 'Jane Doe', email: 'jane@example.com', public_email: null, is_admin: false, bot: null, password_digest: null, namespace_id: 103, created_at: AT, created_by_id: null },
      },
      { type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 3, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } },
      { type: 'ScimIdentityProvisioned', data: { id: 1, group_id: 3, user_id: 3, extern_uid: 'u-1', user_name: 'jane.doe@example.com', given_name: 'Jane', family_name: 'Doe', active: true, at: AT } },
    ],
  },
  'an update saves a changed e-mail stripped and lower-cased': {
    given: [...base, identity(1, 2, 'u-2')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { email: ' Robert@Example.COM' } },
    then: [
      { type: 'UserUpdated', data: { id: 2, updated_at: AT, email: 'robert@example.com' } },
      { type: 'ScimIdentityUpdated', data: { id: 1, group_id: 3, user_id: 2, at: AT, changed: ['emails'] } },
    ],
  },
  'provisioning under a reached user cap: the membership waits, as any other new member': {
    given: [...base, { type: 'GroupUpdated', data: { id: 3, new_user_signups_cap: 1, updated_at: AT } }],
    when: { ...provision, email: 'bob@example.com' },
    then: [
      { type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, invite_email: null, access_level: 30, expires_at: null, state: 'awaiting', ldap: false, created_at: AT, created_by_id: null } },
      { type: 'ScimIdentityProvisioned', data: { id: 1, group_id: 3, user_id: 2, extern_uid: 'u-1', user_name: 'jane.doe@example.com', given_name: 'Jane', family_name: 'Doe', active: true, at: AT } },
    ],
  },
  'the same externalId again, its user in the group, changes nothing (`existing_identity_and_member?`)': {
    given: [...base, memberAdded(2, { group: 3 }, 2, 30), identity(1, 2, 'u-1')],
    when: provision,
    then: [],
  },
  'a userName already provisioned': { given: [...base, identity(1, 2, 'u-2')], when: { ...provision, user_name: 'U-2@example.com' }, error: conflict('userName has already been taken') },
  'a group without SAML': { given: [alice, team, owner], when: provision, error: notFound(undefined, 'Group 3 does not have SAML SSO configured') },
  'an update renames the user and the identity': {
    given: [...base, identity(1, 2, 'u-2')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { name: 'Bobby', family_name: 'B' } },
    then: [
      { type: 'UserUpdated', data: { id: 2, updated_at: AT, name: 'Bobby' } },
      { type: 'ScimIdentityUpdated', data: { id: 1, group_id: 3, user_id: 2, at: AT, changed: ['name.formatted', 'name.familyName'], family_name: 'B' } },
    ],
  },
  'deprovisioning removes the memberships in the group’s hierarchy': {
    given: [...base, memberAdded(2, { group: 3 }, 2, 30), identity(1, 2, 'u-2')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { active: false } },
    then: [
      { type: 'MemberRemoved', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, at: AT } },
      { type: 'ScimIdentityDeprovisioned', data: { id: 1, group_id: 3, user_id: 2, at: AT } },
    ],
  },
  'reprovisioning adds the membership back': {
    given: [...base, identity(1, 2, 'u-2', false)],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { active: true } },
    then: [
      { type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } },
      { type: 'ScimIdentityReprovisioned', data: { id: 1, group_id: 3, user_id: 2, at: AT } },
    ],
  },
  // EE ProvisioningService: `Namespace.clean_path` keeps a one-character name, and the new user's save fails on the
  // namespace's minimum length (:error, 412); a taken one gets a counter (`Uniquify`), which makes it long enough.
  'provisioning refuses a userName whose username would have one character': {
    given: base,
    when: { ...provision, user_name: 'j@example.com' },
    error: preconditionFailed('Error saving user: Username is too short (minimum is 2 characters)'),
  },
  'provisioning does not link a token\'s bot that holds a membership elsewhere (EE `create_identity_and_member`: `member.valid?` fails, :error)': {
    given: [...base, groupCreated(4, 'other', { by: 1 }), userCreated(3, 'group_4_bot', { bot: 'group_bot' }), memberAdded(2, { group: 4 }, 3, 40)],
    when: { ...provision, email: 'group_4_bot@example.com' },
    error: preconditionFailed('Error saving user: User project bots cannot be added to other groups / projects'),
  },
  // `member.valid?` is the platform's first failure for such a bot: before the identity is saved (its "User has already
  // been taken"), and the userName (our own uniqueness rule) is nothing to the platform.
  'a bot held elsewhere already linked under another externalId is 412, not 409': {
    given: [...base, groupCreated(4, 'other', { by: 1 }), userCreated(3, 'group_4_bot', { bot: 'group_bot' }), memberAdded(2, { group: 4 }, 3, 40), identity(1, 3, 'u-3', false)],
    when: { ...provision, email: 'group_4_bot@example.com' },
    error: preconditionFailed('Error saving user: User project bots cannot be added to other groups / projects'),
  },
  // The identity's and a new user's checks come after it too: for an existing account the platform saves no user, and
  // the identity only once the membership is valid.
  'a bot held elsewhere is 412 whatever fields the identity or a new user would refuse': {
    given: [...base, groupCreated(4, 'other', { by: 1 }), userCreated(3, 'group_4_bot', { bot: 'group_bot' }), memberAdded(2, { group: 4 }, 3, 40)],
    when: { ...provision, extern_uid: ' ', user_name: '', name: '', given_name: 'x'.repeat(300), email: 'group_4_bot@example.com' },
    error: preconditionFailed('Error saving user: User project bots cannot be added to other groups / projects'),
  },
  'a bot held elsewhere with a userName the group holds is 412': {
    given: [...base, groupCreated(4, 'other', { by: 1 }), userCreated(3, 'group_4_bot', { bot: 'group_bot' }), memberAdded(2, { group: 4 }, 3, 40), identity(1, 2, 'u-2')],
    when: { ...provision, user_name: 'u-2@example.com', email: 'group_4_bot@example.com' },
    error: preconditionFailed('Error saving user: User project bots cannot be added to other groups / projects'),
  },
  'the same externalId again, its user out of the group, for a bot held elsewhere is 412 (not `existing_identity_and_member?`)': {
    given: [...base, groupCreated(4, 'other', { by: 1 }), userCreated(3, 'group_4_bot', { bot: 'group_bot' }), memberAdded(2, { group: 4 }, 3, 40), identity(1, 3, 'u-1', false)],
    when: { ...provision, email: 'group_4_bot@example.com' },
    error: preconditionFailed('Error saving user: User project bots cannot be added to other groups / projects'),
  },
  'the same externalId again, its user in the group, changes nothing whoever the e-mail is': {
    given: [...base, groupCreated(4, 'other', { by: 1 }), userCreated(3, 'group_4_bot', { bot: 'group_bot' }), memberAdded(2, { group: 4 }, 3, 40), memberAdded(3, { group: 3 }, 2, 30), identity(1, 2, 'u-1')],
    when: { ...provision, email: 'group_4_bot@example.com' },
    then: [],
  },
  // EE `create_identity` (the account is a member): the new identity's save fails on ScimIdentity's `user` uniqueness.
  'a member linked under another externalId is 409 "User has already been taken", nothing saved': {
    given: [...base, memberAdded(2, { group: 3 }, 2, 30), identity(1, 2, 'u-2')],
    when: { ...provision, email: 'bob@example.com' },
    error: conflict('Error saving user: User has already been taken'),
  },
  // EE `create_identity_and_member`: `member.valid?` (`group.add_user` has saved the membership), then `identity.save`
  // fails; no transaction, so the membership stays and the answer is the identity's 409.
  'an account out of the group linked under another externalId joins the group, then fails 409': {
    given: [...base, identity(1, 2, 'u-2', false)],
    when: { ...provision, email: 'bob@example.com' },
    then: [{ type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } }],
    outcome: { failure: conflict('Error saving user: User has already been taken') },
  },
  // The platform never looks at the userName: the same person sent again under a new externalId meets the identity's
  // save, not our userName rule.
  'an account linked under another externalId, sent again with that identity\'s userName: the identity\'s 409, not the userName rule': {
    given: [...base, identity(1, 2, 'u-2', false)],
    when: { ...provision, email: 'bob@example.com', user_name: 'u-2@example.com' },
    then: [{ type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } }],
    outcome: { failure: conflict('Error saving user: User has already been taken') },
  },
  'an account out of the group linked under another externalId, sent inactive: 409, nothing saved (no membership for `active: false`)': {
    given: [...base, identity(1, 2, 'u-2', false)],
    when: { ...provision, email: 'bob@example.com', active: false },
    error: conflict('Error saving user: User has already been taken'),
  },
  // Not `existing_identity_and_member?`: the service goes on with the e-mail's account, and `identity.save` saves the
  // existing identity unchanged.
  'the same externalId again, its user out of the group, for another account out of the group: that account joins, the identity stays': {
    given: [...base, userCreated(3, 'carol'), identity(1, 3, 'u-1', false)],
    when: { ...provision, email: 'bob@example.com' },
    then: [{ type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } }],
  },
  'the same externalId again, its user out of the group, for a member: nothing changes': {
    given: [...base, userCreated(3, 'carol'), identity(1, 3, 'u-1', false), memberAdded(2, { group: 3 }, 2, 30)],
    when: { ...provision, email: 'bob@example.com' },
    then: [],
  },
  'the same externalId again for its own deprovisioned user: the membership comes back, the identity stays inactive': {
    given: [...base, identity(1, 2, 'u-1', false)],
    when: { ...provision, email: 'bob@example.com' },
    then: [{ type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } }],
  },
  // EE `create_user_and_member`: the new account's built ScimIdentity fails its `extern_uid` uniqueness, so `user.save`
  // fails ("Scim identities is invalid", the association has no autosave): :error, nothing saved.
  'the same externalId again, its user out of the group, for an e-mail no account has: 412, no account': {
    given: [...base, identity(1, 2, 'u-1', false)],
    when: provision,
    error: preconditionFailed('Error saving user: Scim identities is invalid'),
  },
  // EE `create_user_and_member` with a blank e-mail: no account has it, the new account's save fails on Devise's
  // presence alone (412), nothing saved.
  'a blank e-mail: 412 "Email can\'t be blank", no account': {
    given: base,
    when: { ...provision, email: ' ' },
    error: preconditionFailed("Error saving user: Email can't be blank"),
  },
  'a blank e-mail beside an over-long name stays our 400': {
    given: base,
    when: { ...provision, email: '', name: 'x'.repeat(256) },
    error: validation({ emails: ["can't be blank"], name: ['is too long (maximum is 255 characters)'] }),
  },
  'a token\'s bot that holds no membership is provisioned as anyone else': {
    given: [...base, userCreated(3, 'project_9_bot', { bot: 'project_bot' })],
    when: { ...provision, email: 'project_9_bot@example.com' },
    then: [
      { type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 3, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } },
      { type: 'ScimIdentityProvisioned', data: { id: 1, group_id: 3, user_id: 3, extern_uid: 'u-1', user_name: 'jane.doe@example.com', given_name: 'Jane', family_name: 'Doe', active: true, at: AT } },
    ],
  },
  'a group token\'s bot already in the group is linked (the identity only)': {
    given: [...base, userCreated(3, 'group_3_bot', { bot: 'group_bot' }), memberAdded(2, { group: 3 }, 3, 40)],
    when: { ...provision, email: 'group_3_bot@example.com' },
    then: [{ type: 'ScimIdentityProvisioned', data: { id: 1, group_id: 3, user_id: 3, extern_uid: 'u-1', user_name: 'jane.doe@example.com', given_name: 'Jane', family_name: 'Doe', active: true, at: AT } }],
  },
  'reprovisioning a bot that now holds a membership elsewhere: the identity is active again, without a membership (ReprovisionService ignores `add_user`\'s unsaved member)': {
    given: [...base, groupCreated(4, 'other', { by: 1 }), userCreated(3, 'group_3_bot', { bot: 'group_bot' }), memberAdded(2, { group: 4 }, 3, 30), identity(1, 3, 'u-3', false)],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-3', changes: { active: true } },
    then: [{ type: 'ScimIdentityReprovisioned', data: { id: 1, group_id: 3, user_id: 3, at: AT } }],
  },
  // `identity.update(extern_uid:)` fails on ScimIdentity's case-insensitive uniqueness; the endpoint answers 412.
  'an update to an externalId another identity of the group holds: 412 "Error updating <name>"': {
    given: [...base, identity(1, 2, 'u-2'), identity(2, 1, 'u-1')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { extern_uid: 'U-1' } },
    error: preconditionFailed('Error updating BOB'),
  },
  // EE `update_scim_user`: a PATCH runs one branch only (deprovision, else reprovision, else externalId, else the rest).
  'a PATCH with active false and a name deprovisions only': {
    given: [...base, memberAdded(2, { group: 3 }, 2, 30), identity(1, 2, 'u-2')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { active: false, name: 'Bobby' }, exclusive: true },
    then: [
      { type: 'MemberRemoved', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, at: AT } },
      { type: 'ScimIdentityDeprovisioned', data: { id: 1, group_id: 3, user_id: 2, at: AT } },
    ],
  },
  'a PATCH with active true on an inactive identity and a name reprovisions only': {
    given: [...base, identity(1, 2, 'u-2', false)],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { active: true, name: 'Bobby' }, exclusive: true },
    then: [
      { type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } },
      { type: 'ScimIdentityReprovisioned', data: { id: 1, group_id: 3, user_id: 2, at: AT } },
    ],
  },
  'a PATCH with only a name on an inactive identity reprovisions it and renames nothing (reference §3.7)': {
    given: [...base, identity(1, 2, 'u-2', false)],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { name: 'Bobby' }, exclusive: true },
    then: [
      { type: 'MemberAdded', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, invite_email: null, access_level: 30, expires_at: null, state: 'active', ldap: false, created_at: AT, created_by_id: null } },
      { type: 'ScimIdentityReprovisioned', data: { id: 1, group_id: 3, user_id: 2, at: AT } },
    ],
  },
  'a PATCH with an externalId and an e-mail changes the externalId only': {
    given: [...base, identity(1, 2, 'u-2')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { extern_uid: 'u-9', email: 'robert@example.com' }, exclusive: true },
    then: [{ type: 'ScimIdentityUpdated', data: { id: 1, group_id: 3, user_id: 2, at: AT, changed: ['externalId'], extern_uid: 'u-9' } }],
  },
  'a PATCH with its own externalId and a name changes nothing (`identity.update` of the same value)': {
    given: [...base, identity(1, 2, 'u-2')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { extern_uid: 'u-2', name: 'Bobby' }, exclusive: true },
    then: [],
  },
  'a PATCH with active true on an active identity and a name renames (the user branch, `active` left out)': {
    given: [...base, memberAdded(2, { group: 3 }, 2, 30), identity(1, 2, 'u-2')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { active: true, name: 'Bobby' }, exclusive: true },
    then: [
      { type: 'UserUpdated', data: { id: 2, updated_at: AT, name: 'Bobby' } },
      { type: 'ScimIdentityUpdated', data: { id: 1, group_id: 3, user_id: 2, at: AT, changed: ['name.formatted'] } },
    ],
  },
  'a PATCH with a blank name: the user save fails, 412 "Error updating <name>"': {
    given: [...base, identity(1, 2, 'u-2')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { name: ' ' }, exclusive: true },
    error: preconditionFailed('Error updating BOB'),
  },
  'a PATCH with a blank externalId: the identity update fails, 412 "Error updating <name>"': {
    given: [...base, identity(1, 2, 'u-2')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { extern_uid: '' }, exclusive: true },
    error: preconditionFailed('Error updating BOB'),
  },
  'a PATCH with a taken e-mail and a taken userName: the e-mail is looked at first': {
    given: [...base, identity(1, 2, 'u-2'), identity(2, 1, 'u-1')],
    when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'u-2', changes: { user_name: 'u-1@example.com', email: 'alice@example.com' }, exclusive: true },
    error: conflict('Email has already been taken'),
  },
  'updating an unknown identity': { given: base, when: { type: 'UpdateScimIdentity', group_id: 3, extern_uid: 'nope', changes: { active: false } }, error: notFound(undefined, 'Resource nope not found') },
  'deleting an identity removes its memberships and the identity': {
    given: [...base, memberAdded(2, { group: 3 }, 2, 30), identity(1, 2, 'u-2')],
    when: { type: 'DeleteScimIdentity', group_id: 3, extern_uid: 'u-2' },
    then: [
      { type: 'MemberRemoved', data: { id: 2, source_type: 'Namespace', source_id: 3, user_id: 2, at: AT } },
      { type: 'ScimIdentityDeleted', data: { id: 1, group_id: 3, user_id: 2, extern_uid: 'u-2', at: AT } },
    ],
  },
  'the last owner of the group is not deprovisioned': {
    given: [...base, identity(1, 1, 'u-1')],
    when: { type: 'DeleteScimIdentity', group_id: 3, extern_uid: 'u-1' },
    error: preconditionFailed('Could not remove ALICE from TEAM. Cannot remove last group owner.'),
  },
};
