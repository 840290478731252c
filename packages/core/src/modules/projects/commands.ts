import type { Visibility } from '../shared/access.js';

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
    }
  | { readonly type: 'UpdateProject'; readonly id: number; readonly name?: string; readonly path?: string; readonly visibility?: Visibility; readonly description?: string }
  | { readonly type: 'DeleteProject'; readonly id: number };
