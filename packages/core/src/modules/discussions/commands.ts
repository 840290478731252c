/**
 * Discussion commands (`Notes::CreateService`, `UpdateService`, `DestroyService`, `ResolveService`,
 * `Discussions::ResolveService`). A noteable is named as the API names it; a diff note's `line_code` is a fact the
 * shell computed from the real diff of the position's SHAs (null: the line is not in that diff), as ref moves are
 * facts from git in the repositories module.
 */
export type NoteableRef =
  | { readonly kind: 'Issue'; readonly project_id: number; readonly iid: number }
  | { readonly kind: 'MergeRequest'; readonly project_id: number; readonly iid: number }
  | { readonly kind: 'Snippet'; readonly project_id: number; readonly id: number }
  | { readonly kind: 'Epic'; readonly group_id: number; readonly id: number }
  /** `sha`: the full commit id, as git resolved it. */
  | { readonly kind: 'Commit'; readonly project_id: number; readonly sha: string };

/** `Gitlab::Diff::Position#to_h` (text and image positions). */
export interface Position {
  readonly base_sha: string | null;
  readonly start_sha: string | null;
  readonly head_sha: string | null;
  readonly old_path: string | null;
  readonly new_path: string | null;
  readonly position_type: 'text' | 'image';
  readonly old_line?: number | null;
  readonly new_line?: number | null;
  readonly line_range?: unknown;
  readonly width?: number | null;
  readonly height?: number | null;
  readonly x?: number | null;
  readonly y?: number | null;
}

export interface DiffFact {
  readonly position: Position;
  /** The line's code in the diff between the position's SHAs, or null when no diff line matches exactly. */
  readonly line_code: string | null;
  /**
   * On a commit: the commit's own diff refs as git has them (`Commit#diff_refs`: its first parent, or the blank SHA
   * for a root commit, as base and start; the commit as head). A position must name these (`diff_refs_match_commit`).
   */
  readonly commit_diff_refs?: { readonly base_sha: string; readonly start_sha: string; readonly head_sha: string };
}

export type DiscussionCommand =
  /** A new thread (`individual: false`, the discussions API) or a single comment (`individual: true`, the notes API). */
  | {
      readonly type: 'StartDiscussion';
      readonly noteable: NoteableRef;
      readonly body: string;
      readonly individual?: boolean;
      readonly created_at?: string;
      readonly diff?: DiffFact;
      /** A merge request's diff note on one of its commits (`commit_id`). */
      readonly commit_id?: string;
      /** `confidential` of `POST …/notes` (14.7: any commenter may set it). */
      readonly confidential?: boolean;
    }
  | { readonly type: 'AddNote'; readonly noteable: NoteableRef; readonly discussion_id: string; readonly body: string; readonly created_at?: string }
  /** `body` absent: the body stays (`PUT …/notes/:id` declares it optional); `confidential`: 14.7's flat notes API sets it. */
  | { readonly type: 'EditNote'; readonly noteable: NoteableRef; readonly note_id: number; readonly body?: string; readonly confidential?: boolean }
  | { readonly type: 'ResolveNote'; readonly noteable: NoteableRef; readonly note_id: number; readonly resolved: boolean }
  | { readonly type: 'ResolveDiscussion'; readonly noteable: NoteableRef; readonly discussion_id: string; readonly resolved: boolean }
  | { readonly type: 'DeleteNote'; readonly noteable: NoteableRef; readonly note_id: number };
