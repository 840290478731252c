/** Uploaded files: user avatars (`/uploads/-/system/user/avatar/:id/:filename`), public as on the platform. */
import { findUser, notFound } from '@forgefold/core';
import { mount, ok, route, type Mount } from '../../http/index.js';
import type { ApiDeps } from '../../app/deps.js';

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  ico: 'image/vnd.microsoft.icon',
  webp: 'image/webp',
};

/**
 * `GET /uploads/-/system/user/avatar/:id/:filename`: a user's uploaded avatar, the same bytes, to anyone (user
 * avatars are public on the platform). Anything else under the path is a 404.
 */
export const uploadMounts = (deps: ApiDeps): Mount[] => [
  mount(
    '/uploads',
    [
      route({
        method: 'GET',
        path: '/-/system/user/avatar/:id/:filename',
        auth: 'none',
        cache: false,
        handler: async (ctx) => {
          const id = ctx.routeParams['id'] ?? '';
          const user = /^\d+$/.test(id) ? findUser(deps.app.state.users, Number(id)) : undefined;
          const avatar = user?.avatar;
          if (!user || !avatar || ctx.routeParams['filename'] !== avatar.filename) return notFound();
          const bytes = await deps.uploads.get(avatar.sha256);
          if (!bytes) return notFound();
          const extension = /\.([^.]+)$/.exec(avatar.filename)?.[1]?.toLowerCase() ?? '';
          return { ...ok(null, { contentType: IMAGE_TYPES[extension] ?? 'application/octet-stream', headers: { 'Content-Disposition': 'inline' } }), rawBody: bytes };
        },
      }),
    ],
    { catchAll: false },
  ),
];
