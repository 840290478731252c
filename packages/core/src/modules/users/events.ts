import * as t from 'io-ts';
import { defineEvents, type EventsOf } from '../../kernel/events.js';
import { nullable } from '../shared/codecs.js';

const stream = (data: { id: number }) => `user-${data.id}`;

const AvatarCodec = t.type({ filename: t.string, sha256: t.string, size: t.number });

export const UserData = t.type({
  id: t.number,
  username: t.string,
  name: t.string,
  email: t.string,
  public_email: nullable(t.string),
  is_admin: t.boolean,
  bot: nullable(t.keyof({ project_bot: null, group_bot: null })),
  password_digest: nullable(t.string),
  namespace_id: t.number,
  created_at: t.string,
  created_by_id: nullable(t.number),
});

/** A user's account settings, optional: absent means the platform's defaults (100000, true, false). */
const AccountSettings = t.partial({ projects_limit: t.number, can_create_group: t.boolean, external: t.boolean });

/** Profile fields set through the users API (see `UserProfile`). */
const ProfileFields = t.partial({
  note: nullable(t.string),
  bio: t.string,
  location: nullable(t.string),
  skype: t.string,
  linkedin: t.string,
  twitter: t.string,
  website_url: t.string,
  organization: nullable(t.string),
  pronouns: nullable(t.string),
  private_profile: t.boolean,
  theme_id: t.number,
  color_scheme_id: t.number,
});

export const userEvents = defineEvents({
  /** The account settings (`projects_limit`, `can_create_group`, `external`) are recorded only when not 100000, true, false. */
  UserCreated: { version: 1, codec: t.intersection([UserData, AccountSettings]), stream },
  UserUpdated: {
    version: 1,
    stream,
    codec: t.intersection([
      t.type({ id: t.number, updated_at: t.string }),
      t.partial({ username: t.string, name: t.string, email: t.string, public_email: nullable(t.string), is_admin: t.boolean, password_digest: nullable(t.string), avatar: nullable(AvatarCodec) }),
      AccountSettings,
      ProfileFields,
    ]),
  },
  /** The user's identity with a provider was created, or its extern_uid changed. */
  UserIdentitySet: { version: 1, stream, codec: t.type({ id: t.number, provider: t.string, extern_uid: t.string, at: t.string }) },
  UserIdentityRemoved: { version: 1, stream, codec: t.type({ id: t.number, provider: t.string, at: t.string }) },
  UserBlocked: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  UserUnblocked: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  UserBanned: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  UserUnbanned: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  /** `POST /users/:id/deactivate` and `/activate` (the state machine's `deactivate` and `activate` from deactivated). */
  UserDeactivated: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  UserActivated: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  UserDeleted: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  UserSignedIn: { version: 1, stream, codec: t.type({ id: t.number, at: t.string }) },
  UserActivityRecorded: { version: 1, stream, codec: t.type({ id: t.number, day: t.string }) },
});

export type UserEvent = EventsOf<typeof userEvents>;
