/** The snippets projection: project snippets with their files. */
import type { SettingsSlice } from '../settings/projection.js';
import { emptyTable, type Table } from '../../kernel/table.js';
import type { MembershipView } from '../members/projection.js';
import type { Visibility } from '../shared/access.js';

export interface SnippetFile {
  readonly path: string;
  readonly content: string;
}

export interface Snippet {
  readonly id: number;
  readonly project_id: number;
  readonly title: string;
  readonly description: string;
  readonly visibility: Visibility;
  readonly files: readonly SnippetFile[];
  readonly author_id: number | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface SnippetsSlice {
  readonly byId: Table<Snippet>;
  /** Project id → its snippets' ids (id → id). */
  readonly byProject: Table<Table<number>>;
  readonly sequence: number;
}

/** Settings are read for `snippet_size_limit`. */
export type SnippetsView = MembershipView & { readonly snippets: SnippetsSlice; readonly settings: SettingsSlice };

export const initialSnippets = (): SnippetsSlice => ({ byId: emptyTable(), byProject: emptyTable(), sequence: 0 });
