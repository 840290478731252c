/** The platform's user entities: UserBasic ⊂ User ⊂ UserPublic (self) ⊂ UserWithAdmin. */
import { canCreateGroupOf, findUser, highestRoleOf, projectsLimitOf, type User } from '@forgefold/core';
import { arraySource, paginate, type HandlerContext } from '../../http/index.js';
import { userAvatarUrl, type PresentContext } from '../context.js';

export const userBasic = (user: User, ctx: PresentContext) => ({
  id: user.id,
  username: user.username,
  name: user.name,
  state: user.state,
  avatar_url: userAvatarUrl(user, ctx),
  web_url: `${ctx.baseUrl}/${user.username}`,
});

/**
 * UserPolicy's `read_user_profile`: prevented for a private profile and for a blocked user (`blocked?`, which a
 * banned user is too) unless the viewer is that user or an administrator (every account here is confirmed).
 */
export const readsProfile = (user: User, ctx: PresentContext): boolean =>
  (user.private_profile !== true && user.state !== 'blocked' && user.state !== 'banned') || ctx.viewerIsAdmin || ctx.viewerId === user.id;

/** Entities::User: `created_at`, `followers` and `following` only where the profile may be read. */
export const userEntity = (user: User, ctx: PresentContext) => ({
  ...userBasic(user, ctx),
  ...(readsProfile(user, ctx) ? { created_at: user.created_at } : {}),
  bio: user.bio ?? '',
  location: user.location ?? null,
  public_email: user.public_email ?? '',
  skype: user.skype ?? '',
  linkedin: user.linkedin ?? '',
  twitter: user.twitter ?? '',
  website_url: user.website_url ?? '',
  organization: user.organization ?? null,
  job_title: '',
  pronouns: user.pronouns ?? null,
  bot: user.bot !== null,
  work_information: null,
  ...(readsProfile(user, ctx) ? { followers: 0, following: 0 } : {}),
  local_time: null,
});

/** What a user sees of themselves (`GET /user`). */
export const userPublic = (user: User, ctx: PresentContext) => ({
  ...userEntity(user, ctx),
  last_sign_in_at: user.last_sign_in_at,
  confirmed_at: user.created_at,
  last_activity_on: user.last_activity_on,
  email: user.email,
  theme_id: user.theme_id ?? 1,
  color_scheme_id: user.color_scheme_id ?? 1,
  projects_limit: projectsLimitOf(user),
  current_sign_in_at: user.current_sign_in_at,
  identities: user.identities.map((identity) => ({ provider: identity.provider, extern_uid: identity.extern_uid })),
  can_create_group: canCreateGroupOf(user),
  can_create_project: user.bot === null,
  two_factor_enabled: false,
  external: user.external ?? false,
  private_profile: user.private_profile ?? false,
  commit_email: user.email,
});

export const userWithAdmin = (user: User, ctx: PresentContext) => ({
  ...userPublic(user, ctx),
  is_admin: user.is_admin,
  note: user.note ?? null,
  using_license_seat: user.bot === null && user.state === 'active',
  is_auditor: false,
  provisioned_by_group_id: null,
});

/**
 * UserDetailsWithAdmin (`GET /users/:id` for administrators): sign-in addresses are not recorded here (null), sign-ins
 * are counted from `UserSignedIn`, and the highest role comes from the memberships (`User#highest_role`).
 */
export const userDetailsWithAdmin = (user: User, ctx: PresentContext, today: string) => ({
  ...userWithAdmin(user, ctx),
  highest_role: highestRoleOf(ctx.state.members, user.id, today),
  current_sign_in_ip: null,
  last_sign_in_ip: null,
  sign_in_count: user.sign_in_count ?? 0,
});

/** `GET /user`: UserWithAdmin for an administrator, UserPublic for anyone else (lib/api/users.rb, `resource :user`). */
export const currentUserEntity = (user: User, ctx: PresentContext) => (ctx.viewerIsAdmin ? userWithAdmin(user, ctx) : userPublic(user, ctx));

/** `GET /users/:id`: UserDetailsWithAdmin for an administrator, User for everyone else, the user themselves included. */
export const userFor = (user: User, ctx: PresentContext, today: string) => (ctx.viewerIsAdmin ? userDetailsWithAdmin(user, ctx, today) : userEntity(user, ctx));

/**
 * An issuable's participants (`paginate(::Kaminari.paginate_array(issuable.participants))`, `Entities::UserBasic`):
 * user ids the participants queries found, which exist.
 */
export const participantsPage = (ctx: HandlerContext<unknown>, view: PresentContext, ids: readonly number[]) =>
  paginate(ctx, arraySource(ids), { map: (id) => userBasic(findUser(view.state.users, id)!, view) });
