/** The releases projection: every project's releases by tag name, with their asset links. */
import { emptyTable, type Table } from '../../kernel/table.js';
import type { RepositoriesView } from '../repositories/projection.js';

export interface ReleaseLink {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  /** The direct asset path (`/binaries/app`), or null. */
  readonly filepath: string | null;
  /** `other`, `runbook`, `image` or `package`. */
  readonly link_type: string;
  readonly created_at: string;
}

export interface Release {
  readonly id: number;
  readonly project_id: number;
  readonly tag: string;
  readonly name: string | null;
  readonly description: string | null;
  readonly sha: string | null;
  readonly author_id: number | null;
  readonly created_at: string;
  readonly released_at: string;
  readonly updated_at: string;
  /** In creation order (the entity sorts them). */
  readonly links: readonly ReleaseLink[];
}

export interface ReleasesSlice {
  /** Release id → release. */
  readonly byId: Table<Release>;
  /** Project id → (tag name → release id). */
  readonly byProject: Table<Table<number>>;
  readonly sequences: { readonly release: number; readonly link: number };
}

/** What the module's decisions read: memberships, projects, repositories (tags, protected tags) and its slice. */
export type ReleasesView = RepositoriesView & { readonly releases: ReleasesSlice };

export const initialReleases = (): ReleasesSlice => ({ byId: emptyTable(), byProject: emptyTable(), sequences: { release: 0, link: 0 } });
