/** What presenters need beyond the entity: the external base URL and who is looking. */
import { createHash } from 'node:crypto';
import type { State, User } from '@forgefold/core';
import { encodeUriComponentSafely } from '../http/index.js';

export interface PresentContext {
  readonly state: State;
  /** External base URL without a trailing slash, e.g. "http://127.0.0.1:8080". */
  readonly baseUrl: string;
  /** The user the request runs as (after sudo), or null. */
  readonly viewerId: number | null;
  readonly viewerIsAdmin: boolean;
  /**
   * The Gravatar URL template (the platform's `gravatar.plain_url`, by default
   * `https://www.gravatar.com/avatar/%{hash}?s=%{size}&d=identicon`), or undefined: no Gravatar.
   */
  readonly gravatarUrl?: string;
}

/** Where an uploaded user avatar is served (the platform's AvatarUploader path for users). */
export const userAvatarPath = (userId: number, filename: string): string => `/uploads/-/system/user/avatar/${userId}/${encodeUriComponentSafely(filename)}`;

/** Gravatar URLs memoized per template and address (a page of members would hash every address per request). */
const gravatars = new Map<string, string>();

/**
 * GravatarService: the template filled for an e-mail address (%{hash}: MD5 of the trimmed, lower-cased address;
 * %{size}: 80, the API's 40 at scale 2), or null when no template is configured: then no third party ever
 * sees a hash of a user's address.
 */
export const gravatarFor = (email: string, ctx: Pick<PresentContext, 'gravatarUrl'>, username = ''): string | null => {
  const template = ctx.gravatarUrl;
  if (!template) return null;
  const key = `${template}\n${email}\n${username}`;
  let url = gravatars.get(key);
  if (url === undefined) {
    const address = email.trim().toLowerCase();
    url = template
      .replaceAll('%{hash}', createHash('md5').update(address).digest('hex'))
      .replaceAll('%{size}', '80')
      // Stored text: an address an older version let through may hold an unpaired surrogate.
      .replaceAll('%{email}', encodeUriComponentSafely(address))
      .replaceAll('%{username}', encodeUriComponentSafely(username));
    if (gravatars.size > 100_000) gravatars.clear();
    gravatars.set(key, url);
  }
  return url;
};

/** A user's `avatar_url`: the uploaded avatar, else Gravatar when configured, else null (as the platform). */
export const userAvatarUrl = (user: Pick<User, 'id' | 'email' | 'username' | 'avatar'>, ctx: Pick<PresentContext, 'gravatarUrl' | 'baseUrl'>): string | null =>
  user.avatar ? `${ctx.baseUrl}${userAvatarPath(user.id, user.avatar.filename)}` : gravatarFor(user.email, ctx, user.username);
