/** What presenters need beyond the entity: the external base URL and who is looking. */
import { createHash } from 'node:crypto';
import type { State } from '@forgefold/core';

export interface PresentContext {
  readonly state: State;
  /** External base URL without a trailing slash, e.g. "http://127.0.0.1:8080". */
  readonly baseUrl: string;
  /** The user the request runs as (after sudo), or null. */
  readonly viewerId: number | null;
  readonly viewerIsAdmin: boolean;
}

/** The platform shows a Gravatar identicon for users without an uploaded avatar. */
export const gravatarUrl = (email: string): string =>
  `https://www.gravatar.com/avatar/${createHash('md5').update(email.trim().toLowerCase()).digest('hex')}?s=80&d=identicon`;

/** The Gravatar URL memoized per address (a page of members would otherwise hash every address per request). */
const avatars = new Map<string, string>();
export const avatarOf = (email: string): string => {
  let url = avatars.get(email);
  if (url === undefined) {
    url = gravatarUrl(email);
    if (avatars.size > 100_000) avatars.clear();
    avatars.set(email, url);
  }
  return url;
};
