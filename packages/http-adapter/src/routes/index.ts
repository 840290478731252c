/**
 * Every route of the API, by module. A route lives in the file of its module; this list only mounts them.
 * Membership and SCIM route files register themselves here with one line each.
 */
import { mount, type Mount } from '../http/index.js';
import type { ApiDeps } from '../app/deps.js';
import { uploadMounts, userRoutes } from './users.js';
import { tokenRoutes } from './tokens.js';
import { groupRoutes } from './groups.js';
import { projectRoutes } from './projects.js';
import { oauthRoutes, versionRoutes } from './meta.js';
import { scimMounts } from './scim.js';
import { memberRoutes } from './members.js';
import { repositoryRoutes } from './repositories/index.js';

export interface RouteOptions {
  /** Lifetime of OAuth access tokens in seconds. */
  readonly accessTokenLifetime: number;
}

export const apiMounts = (deps: ApiDeps, options: RouteOptions): Mount[] => [
  mount('/api/v4', [
    ...versionRoutes(deps),
    ...userRoutes(deps),
    ...tokenRoutes(deps),
    ...groupRoutes(deps),
    ...projectRoutes(deps),
    ...memberRoutes(deps),
    ...repositoryRoutes(deps),
  ]),
  mount('/oauth', oauthRoutes(deps, options), { catchAll: false }),
  ...scimMounts(deps),
  ...uploadMounts(deps),
];
