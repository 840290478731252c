/**
 * Every resource of the API, one folder each (`resources/<name>/{routes,params,entities}.ts`); this list only
 * mounts them, in the order the router tries them (`members/approve_all` before `members/:user_id`, which each
 * resource keeps within itself). A host may serve a longer list (`ForgefoldApiOptions.resources`).
 */
import { mount, type AnyRouteDef, type Mount } from '../http/index.js';
import type { ApiDeps } from '../app/deps.js';
import { oauthRoutes, versionRoutes } from './meta/routes.js';
import { userRoutes } from './users/routes.js';
import { tokenRoutes } from './tokens/routes.js';
import { groupRoutes } from './groups/routes.js';
import { projectRoutes } from './projects/routes.js';
import { starRoutes } from './projects/stars.js';
import { billableMemberRoutes } from './billable-members/routes.js';
import { pendingMemberRoutes } from './pending-members/routes.js';
import { memberRoutes } from './members/routes.js';
import { invitationRoutes } from './invitations/routes.js';
import { shareRoutes } from './shares/routes.js';
import { ldapRoutes } from './ldap/routes.js';
import { auditRoutes } from './audit/routes.js';
import { accessRequestRoutes } from './access-requests/routes.js';
import { samlRoutes } from './saml/routes.js';
import { scimMount } from './scim/routes.js';
import { uploadMounts } from './uploads/routes.js';
import { tagRoutes } from './tags/routes.js';
import { releaseRoutes } from './releases/routes.js';
import { branchRoutes } from './branches/routes.js';
import { protectedRefRoutes } from './protected-refs/routes.js';
import { commitRoutes } from './commits/routes.js';
import { commitCommentRoutes } from './commits/comments.js';
import { commitMergeRequestRoutes } from './commits/merge-requests.js';
import { fileRoutes } from './files/routes.js';
import { mergeRequestRoutes } from './merge-requests/routes.js';
import { environmentRoutes } from './environments/routes.js';
import { deploymentRoutes } from './deployments/routes.js';
import { clusterRoutes } from './clusters/routes.js';
import { pipelineRoutes } from './pipelines/routes.js';
import { pipelineScheduleRoutes } from './pipeline-schedules/routes.js';
import { issueRoutes } from './issues/routes.js';
import { snippetRoutes } from './snippets/routes.js';
import { epicRoutes } from './epics/routes.js';
import { discussionRoutes } from './discussions/routes.js';
import { geoNodeRoutes } from './geo-nodes/routes.js';
import { settingsRoutes } from './settings/routes.js';

export interface RouteOptions {
  /** Lifetime of OAuth access tokens in seconds. */
  readonly accessTokenLifetime: number;
}

/** One resource folder's routes under `/api/v4` (its `routes.ts` export). */
export type ApiResource = (deps: ApiDeps) => readonly AnyRouteDef[];

/** The resource list: every resource under `/api/v4`, in the order the router tries them. A new resource is one entry. */
export const apiResources: readonly ApiResource[] = [
  versionRoutes,
  userRoutes,
  tokenRoutes,
  groupRoutes,
  projectRoutes,
  starRoutes,
  // Repositories (git over HTTP is a raw route of the server, see app/api.ts).
  tagRoutes,
  branchRoutes,
  protectedRefRoutes,
  commitRoutes,
  commitCommentRoutes,
  commitMergeRequestRoutes,
  fileRoutes,
  mergeRequestRoutes,
  billableMemberRoutes,
  pendingMemberRoutes,
  memberRoutes,
  invitationRoutes,
  accessRequestRoutes,
  shareRoutes,
  ldapRoutes,
  auditRoutes,
  environmentRoutes,
  deploymentRoutes,
  clusterRoutes,
  pipelineRoutes,
  pipelineScheduleRoutes,
  // Noteables and their discussions (the discussions' routes go below their noteables' own).
  issueRoutes,
  snippetRoutes,
  epicRoutes,
  discussionRoutes,
  geoNodeRoutes,
  settingsRoutes,
  releaseRoutes,
];

/** The server's mounts: the resource list (the product's, or a longer one), then OAuth, SAML, SCIM and uploads. */
export const apiMounts = (deps: ApiDeps, options: RouteOptions, resources: readonly ApiResource[] = apiResources): Mount[] => [
  mount(
    '/api/v4',
    resources.flatMap((routes) => routes(deps)),
  ),
  mount('/oauth', oauthRoutes(deps, options), { catchAll: false }),
  mount('/api/v4', samlRoutes(deps)),
  scimMount(deps),
  ...uploadMounts(deps),
];
