/** The projects projection: every project with its namespace and full path, indexed by full path and namespace. */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { Visibility } from '../shared/access.js';

export interface Project {
  readonly id: number;
  readonly name: string;
  readonly path: string;
  readonly description: string;
  /** A group id, or the personal namespace id of a user. */
  readonly namespace_id: number;
  readonly namespace_kind: 'group' | 'user';
  /** "group/sub/project": kept current when a namespace is renamed. */
  readonly path_with_namespace: string;
  readonly name_with_namespace: string;
  readonly visibility: Visibility;
  readonly creator_id: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_activity_at: string;
  /** The project this one was forked from (null when not a fork, or once that project is deleted). */
  readonly forked_from_id: number | null;
  /** How many existing projects were forked from this one. */
  readonly forks_count: number;
  /** How many users starred the project (the platform's `star_count` counter cache: every star, a blocked user's too). */
  readonly star_count: number;
  /** How merge requests merge (`merge_method`): a merge commit always, a merge commit only when fast-forward is possible, or fast-forward only. */
  readonly merge_method: MergeMethod;
  /**
   * Whether users may ask to join (`request_access_enabled`, changed by `PUT /projects/:id`). Evolve stores true (the
   * default) when ProjectCreated lacks it: the decider records it only when off, and older logs never do.
   */
  readonly request_access_enabled: boolean;
}

export type MergeMethod = 'merge' | 'rebase_merge' | 'ff';

export interface ProjectsSlice {
  readonly byId: Table<Project>;
  /** Lower-cased path_with_namespace → project id. */
  readonly byFullPath: Table<number>;
  /** Namespace id → project id → project id. */
  readonly byNamespace: Table<Table<number>>;
  readonly count: number;
  /** Ids of the public and of the internal projects (id → 1), kept by evolve (see GroupsSlice.publicIds). */
  readonly publicIds: Table<1>;
  readonly internalIds: Table<1>;
  /**
   * Namespace id → id → 1: the ids of each namespace's public and of its internal projects, kept by evolve with
   * `publicIds`/`internalIds` (creation, visibility change, transfer, deletion), so that a group's project list
   * starts from what the caller may see by visibility instead of every project of the group.
   */
  readonly publicByNamespace: Table<Table<1>>;
  readonly internalByNamespace: Table<Table<1>>;
  /** Source project id → fork id → fork id: the direct forks of each project (`GET /projects/:id/forks`). */
  readonly forksOf: Table<Table<number>>;
  /**
   * Project id → star serial → user id: the starrers of each project in the order they starred it (the serial is the
   * UsersStarProject row's id: `GET /projects/:id/starrers` lists the newest first).
   */
  readonly starrers: Table<Table<number>>;
  /** User id → project id → the star: the projects each user starred (`GET /users/:id/starred_projects`, `starred=true`). */
  readonly starred: Table<Table<Star>>;
  /** The last star serial drawn (evolve draws one per `ProjectStarred`). */
  readonly starSerial: number;
}

/** A user's star on a project. */
export interface Star {
  readonly serial: number;
  /** When the user starred the project (`starred_since`). */
  readonly at: string;
}

export const initialProjects = (): ProjectsSlice => ({ byId: emptyTable(), byFullPath: emptyTable(), byNamespace: emptyTable(), count: 0, publicIds: emptyTable(), internalIds: emptyTable(), publicByNamespace: emptyTable(), internalByNamespace: emptyTable(), forksOf: emptyTable(), starrers: emptyTable(), starred: emptyTable(), starSerial: 0 });
