/** The source of memberships a route names: `/groups/:id/…` or `/projects/:id/…` (the platform's `find_source!`). */
import * as E from 'fp-ts/lib/Either.js';
import { canAdminMembers, type DomainError, type Group, type Project, type SourceType, type State } from '@forgefold/core';
import type { HandlerContext } from '../../http/index.js';
import { findReadableGroup, findReadableProject, viewerId } from '../../app/deps.js';

export type SourceKind = 'groups' | 'projects';

export const sourceTypeOf = (kind: SourceKind): SourceType => (kind === 'groups' ? 'Namespace' : 'Project');

export type FoundSource = { readonly type: 'Namespace'; readonly id: number; readonly group: Group; readonly project?: undefined } | { readonly type: 'Project'; readonly id: number; readonly project: Project; readonly group?: undefined };

/** `find_source!`: the readable group or project of `:id`, else 404 "Group/Project Not Found". */
export const findSource =
  (kind: SourceKind) =>
  (ctx: HandlerContext<unknown>, state: State): E.Either<DomainError, FoundSource> => {
    const id = String(ctx.routeParams['id']);
    if (kind === 'groups') return E.map((group: Group): FoundSource => ({ type: 'Namespace', id: group.id, group }))(findReadableGroup(state, ctx, id));
    return E.map((project: Project): FoundSource => ({ type: 'Project', id: project.id, project }))(findReadableProject(state, ctx, id));
  };

/** `admin_group_member` / `admin_project_member` on the source, from the access table. */
export const mayAdminSource = (ctx: HandlerContext<unknown>, state: State, source: FoundSource, today: string): boolean => canAdminMembers(state, viewerId(ctx), source, today);

/** A Grape DateTime parameter as the Member model keeps it: its date. */
export const dateOf = (value: string | null | undefined): string | null | undefined => (value === null || value === undefined ? value : value.slice(0, 10));
