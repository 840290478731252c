/** Reads over the releases slice. */
import { tableGet, tableValues } from '../../kernel/table.js';
import type { Release, ReleasesSlice } from './projection.js';

export const findRelease = (slice: ReleasesSlice, projectId: number, tag: string): Release | undefined => {
  const tags = tableGet(slice.byProject, projectId);
  const id = tags === undefined ? undefined : tableGet(tags, tag);
  return id === undefined ? undefined : tableGet(slice.byId, id);
};

/** A project's releases, in no particular order. */
export const releasesOfProject = (slice: ReleasesSlice, projectId: number): Release[] => {
  const tags = tableGet(slice.byProject, projectId);
  if (!tags) return [];
  const out: Release[] = [];
  for (const id of tableValues(tags)) {
    const release = tableGet(slice.byId, id);
    if (release) out.push(release);
  }
  return out;
};

/** `links.sorted`: newest first (`order(created_at: :desc)`, ids breaking ties the same way). */
export const sortedLinks = (release: Release) => [...release.links].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id));
