/**
 * Release commands (`Releases::CreateService`, `UpdateService`, `DestroyService`, `Releases::Links` API). Facts
 * from git enter through the command: the commit the release's tag peels to, read by the shell under its lock.
 */

/** An asset link as asked (`assets[links][]`, `POST …/assets/links`). */
export interface ReleaseLinkInput {
  readonly name: string;
  readonly url: string;
  readonly filepath?: string | null;
  readonly link_type?: string;
}

export type ReleaseCommand =
  | {
      readonly type: 'CreateRelease';
      readonly project_id: number;
      readonly tag: string;
      readonly name?: string;
      readonly description?: string;
      /** ISO-8601; the creation time when absent. */
      readonly released_at?: string;
      readonly links?: readonly ReleaseLinkInput[];
      /** Milestone titles: none are kept here, so any title is "not found" (as on a project without milestones). */
      readonly milestones?: readonly string[];
      /** The commit the tag peels to (null: the tag is missing or points at no commit). */
      readonly sha: string | null;
    }
  | {
      readonly type: 'UpdateRelease';
      readonly project_id: number;
      readonly tag: string;
      readonly name?: string;
      readonly description?: string;
      readonly released_at?: string;
      readonly milestones?: readonly string[];
    }
  | { readonly type: 'DeleteRelease'; readonly project_id: number; readonly tag: string }
  | ({ readonly type: 'CreateReleaseLink'; readonly project_id: number; readonly tag: string } & ReleaseLinkInput)
  | {
      readonly type: 'UpdateReleaseLink';
      readonly project_id: number;
      readonly tag: string;
      readonly link_id: number;
      readonly name?: string;
      readonly url?: string;
      readonly filepath?: string | null;
      readonly link_type?: string;
    }
  | { readonly type: 'DeleteReleaseLink'; readonly project_id: number; readonly tag: string; readonly link_id: number };
