/** Every route of the repositories module (git over HTTP is a raw route, mounted by the API). */
import type { RouteDef } from '../../http/index.js';
import type { ApiDeps } from '../../app/deps.js';
import { tagRoutes } from './tags.js';
import { branchRoutes } from './branches.js';
import { protectedRefRoutes } from './protected-refs.js';
import { commitRoutes } from './commits.js';
import { fileRoutes } from './files.js';
import { mergeRequestRoutes } from './merge-requests.js';

export const repositoryRoutes = (deps: ApiDeps): RouteDef[] => [...tagRoutes(deps), ...branchRoutes(deps), ...protectedRefRoutes(deps), ...commitRoutes(deps), ...fileRoutes(deps), ...mergeRequestRoutes(deps)];
