/** Project snippet commands (`Snippets::CreateService`, `UpdateService`, `DestroyService`). Files live in the log. */
import type { Visibility } from '../shared/access.js';

export interface SnippetFileInput {
  readonly file_path: string;
  readonly content: string;
}

export type SnippetCommand =
  | {
      readonly type: 'CreateSnippet';
      readonly project_id: number;
      readonly title: string;
      readonly description?: string;
      readonly visibility: Visibility;
      readonly files: readonly SnippetFileInput[];
    }
  | {
      readonly type: 'UpdateSnippet';
      readonly project_id: number;
      readonly id: number;
      readonly title?: string;
      readonly description?: string;
      readonly visibility?: Visibility;
      /** The whole new set of files (the shell applies `files[]` actions or `content`/`file_name` to the current set). */
      readonly files?: readonly SnippetFileInput[];
    }
  | { readonly type: 'DeleteSnippet'; readonly project_id: number; readonly id: number };
