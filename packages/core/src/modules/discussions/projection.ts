/**
 * The discussions projection. Notes by id; threads by their 40-hex id; and per noteable an index of its threads in
 * the order they started (ordinal → thread id) with their count, so that a page of threads costs the page and not
 * the noteable's history (`X-Total` is the count).
 */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { NoteableRef, Position } from './commands.js';
import type { NoteableType, NoteType } from './events.js';
import type { IssuesSlice } from '../issues/projection.js';
import type { SnippetsSlice } from '../snippets/projection.js';
import type { EpicsSlice } from '../epics/projection.js';
import type { RepositoriesSlice } from '../repositories/projection.js';
import type { MembershipView } from '../members/projection.js';

export interface Note {
  readonly id: number;
  readonly discussion_id: string;
  readonly noteable_key: string;
  readonly type: NoteType;
  readonly body: string;
  readonly author_id: number | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly system: boolean;
  readonly position: Position | null;
  readonly line_code: string | null;
  readonly commit_id: string | null;
  readonly resolved_by_id: number | null;
  readonly resolved_at: string | null;
  /** A confidential note (NotePolicy: only those who may read confidential notes see it); absent: false. */
  readonly confidential?: boolean;
  /** A cross-reference's mentioner ("mentioned in …"): readers who may not read it do not see the note. */
  readonly mentioner?: NoteableRef;
}

export interface Discussion {
  readonly id: string;
  readonly noteable_key: string;
  readonly individual_note: boolean;
  /** Oldest first (`fresh`). */
  readonly note_ids: readonly number[];
  /** Its place in the noteable's thread index. */
  readonly ordinal: number;
}

export interface NoteableThreads {
  readonly key: string;
  readonly type: NoteableType;
  readonly id: number | null;
  readonly iid: number | null;
  readonly project_id: number | null;
  readonly group_id: number | null;
  readonly commit_sha: string | null;
  /** Ordinal → thread id, in the order the threads started. */
  readonly threads: Table<string>;
  readonly next_ordinal: number;
  readonly thread_count: number;
  readonly note_count: number;
}

export interface DiscussionsSlice {
  readonly notes: Table<Note>;
  readonly discussions: Table<Discussion>;
  readonly noteables: Table<NoteableThreads>;
  /** The last note id drawn (system notes draw from it too). */
  readonly sequence: number;
  /** Per target noteable key, the cross-reference bodies it holds (`cross_reference_exists?`). */
  readonly cross_references: Table<readonly string[]>;
}

/** What the decisions read: abilities, and the noteables. */
export type DiscussionsView = MembershipView & {
  readonly issues: IssuesSlice;
  readonly snippets: SnippetsSlice;
  readonly epics: EpicsSlice;
  readonly repositories: RepositoriesSlice;
  readonly discussions: DiscussionsSlice;
};

export const initialDiscussions = (): DiscussionsSlice => ({ notes: emptyTable(), discussions: emptyTable(), noteables: emptyTable(), sequence: 0, cross_references: emptyTable() });
