/**
 * Project stars (lib/api/projects.rb, 14.7): `POST /projects/:id/star` and `/unstar`, and `GET /projects/:id/starrers`
 * (UsersStarProjectsFinder, the UserStarsProject entity). `GET /users/:user_id/starred_projects` and `starred=true`
 * are with the projects lists (routes.ts).
 */
import { compareUserSearch, findProject, findUser, isRubyBlank, matchesUserSearch, starrersOf, type Project, type State, type User } from '@forgefold/core';
import { created, optional, schema, T, withPagination, withStatus, type AnyRouteDef } from '../../http/index.js';
import { presentContext, type ApiDeps } from '../../app/deps.js';
import { commandRoute, listRoute, projectOfRoute } from '../../app/routes.js';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';
import { projectEntity } from './entities.js';

const starrersParams = withPagination(schema(optional('search', T.String)));

interface StarrerRow {
  readonly user: User;
  readonly starred_since: string;
}

/**
 * UsersStarProjectsFinder: the project's stars, newest first (`order_id_desc`), of users whose profile the viewer may
 * see (`with_visible_profile`: public profiles, the viewer's own, every one for an administrator); with a `search`
 * (`present?`), `User.search`'s matches in its order (its `reorder` replaces the stars' order). What it costs: the
 * project's stars, from their index.
 */
const starrerRows = (state: State, project: Project, view: PresentContext, search: string | null | undefined): StarrerRow[] => {
  const query = search !== undefined && search !== null && !isRubyBlank(search) ? search : null;
  const rows: StarrerRow[] = [];
  for (const star of starrersOf(state.projects, project.id)) {
    const user = findUser(state.users, star.user_id);
    if (!user) continue;
    if (user.private_profile === true && !view.viewerIsAdmin && view.viewerId !== user.id) continue;
    if (query !== null && !matchesUserSearch(user, query)) continue;
    rows.push({ user, starred_since: star.starred_since });
  }
  if (query !== null) {
    const compare = compareUserSearch(query);
    rows.sort((a, b) => compare(a.user, b.user));
  }
  return rows;
};

export const starRoutes = (deps: ApiDeps): AnyRouteDef[] => {
  /** `toggle_star` then `present user_project, with: Entities::Project` (201), or `not_modified!` when nothing changed. */
  const toggle = (action: 'star' | 'unstar') =>
    commandRoute(deps, {
      method: 'POST',
      path: `/projects/:id/${action}`,
      find: projectOfRoute,
      command: (_ctx, project) => ({ type: action === 'star' ? 'StarProject' : 'UnstarProject', id: project.id }),
      present: (done, ctx, project) =>
        done.events.length > 0 ? created(projectEntity(findProject(done.state.projects, project.id) ?? project, presentContext(deps, ctx, done.state))) : withStatus(304),
    });
  return [
    toggle('star'),
    toggle('unstar'),
    listRoute(deps, {
      path: '/projects/:id/starrers',
      auth: 'optional',
      params: starrersParams,
      find: projectOfRoute,
      rows: (ctx, state, project) => starrerRows(state, project, presentContext(deps, ctx, state), ctx.params.search),
      present: (row, view) => ({ starred_since: row.starred_since, user: userBasic(row.user, view) }),
    }),
  ];
};
