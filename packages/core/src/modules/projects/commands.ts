import type { Visibility } from '../shared/access.js';
import type { MergeMethod } from './projection.js';

export type ProjectCommand =
  | {
      readonly type: 'CreateProject';
      readonly name?: string;
      readonly path?: string;
      /** A group id or a personal namespace id; defaults to the owner's personal namespace. */
      readonly namespace_id?: number;
      /** `POST /projects/user/:user_id`: an administrator creates the project for this user. */
      readonly owner_id?: number;
      readonly visibility?: Visibility;
      readonly description?: string;
      /** False: users may not ask to join (true, the default, is not recorded). */
      readonly request_access_enabled?: boolean;
    }
  | {
      readonly type: 'UpdateProject';
      readonly id: number;
      readonly name?: string;
      readonly path?: string;
      readonly visibility?: Visibility;
      readonly description?: string;
      readonly merge_method?: MergeMethod;
      readonly request_access_enabled?: boolean;
    }
  /** `PUT /projects/:id/transfer`: to a group or a personal namespace (by id). */
  | { readonly type: 'TransferProject'; readonly id: number; readonly namespace_id: number }
  | { readonly type: 'DeleteProject'; readonly id: number }
  /** `DELETE /projects/:id/fork` (Projects::UnlinkForkService): the project stops being a fork of its source. */
  | { readonly type: 'UnlinkFork'; readonly id: number }
  /** `POST /projects/:id/star` and `/unstar` (`User#toggle_star`): the actor stars the project, or takes the star back. */
  | { readonly type: 'StarProject'; readonly id: number }
  | { readonly type: 'UnstarProject'; readonly id: number }
  /**
   * `POST /projects/:id/fork` (Projects::ForkService): a new project in `namespace_id` (default: the actor's
   * personal namespace) with the source's name, path and description unless given, at most as visible as the
   * source and the namespace. Its repository is copied by the shell after the events.
   */
  | {
      readonly type: 'ForkProject';
      readonly id: number;
      readonly namespace_id?: number;
      readonly name?: string;
      readonly path?: string;
      readonly description?: string;
      readonly visibility?: Visibility;
    };
