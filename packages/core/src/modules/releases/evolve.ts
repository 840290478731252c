/** The releases module's evolve: releases and their links; a release goes with its tag and its project. */
import { emptyTable, tableDelete, tableGet, tableSet, tableValues } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import type { ProjectEvent } from '../projects/events.js';
import type { RepositoryEvent } from '../repositories/events.js';
import type { ReleaseEvent } from './events.js';
import type { ReleasesSlice } from './projection.js';

export type ReleasesDraft = Writable<{ readonly releases: ReleasesSlice }, 'releases'>;

const removeRelease = (state: ReleasesDraft, projectId: number, id: number): void => {
  const release = tableGet(state.releases.byId, id);
  if (!release) return;
  const tags = tableGet(state.releases.byProject, projectId);
  if (tags) tableDelete(tags, release.tag);
  tableDelete(state.releases.byId, id);
};

export const evolve = (state: ReleasesDraft, event: ReleaseEvent): void => {
  const { sequences } = state.releases;
  switch (event.type) {
    case 'ReleaseCreated': {
      const { links, ...data } = event.data;
      tableSet(state.releases.byId, data.id, { ...data, updated_at: data.created_at, links: links.map(({ id, name, url, filepath, link_type, created_at }) => ({ id, name, url, filepath, link_type, created_at })) });
      let tags = tableGet(state.releases.byProject, data.project_id);
      if (!tags) {
        tableSet(state.releases.byProject, data.project_id, emptyTable<number>());
        tags = tableGet(state.releases.byProject, data.project_id)!;
      }
      tableSet(tags, data.tag, data.id);
      if (data.id > sequences.release) sequences.release = data.id;
      for (const link of links) if (link.id > sequences.link) sequences.link = link.id;
      return;
    }
    case 'ReleaseUpdated': {
      const { project_id: _project, id, ...changes } = event.data;
      const release = tableGet(state.releases.byId, id);
      if (release) Object.assign(release, changes);
      return;
    }
    case 'ReleaseDeleted':
      removeRelease(state, event.data.project_id, event.data.id);
      return;
    case 'ReleaseLinkCreated': {
      const { project_id: _project, release_id, ...link } = event.data;
      tableGet(state.releases.byId, release_id)?.links.push(link);
      if (link.id > sequences.link) sequences.link = link.id;
      return;
    }
    case 'ReleaseLinkUpdated': {
      const { project_id: _project, release_id, id, ...changes } = event.data;
      const link = tableGet(state.releases.byId, release_id)?.links.find((candidate) => candidate.id === id);
      if (link) Object.assign(link, changes);
      return;
    }
    case 'ReleaseLinkDeleted': {
      const release = tableGet(state.releases.byId, event.data.release_id);
      if (release) release.links = release.links.filter((link) => link.id !== event.data.id);
      return;
    }
  }
};

/** `Tags::DestroyService` destroys the tag's release; a push that deletes a tag leaves it (as the platform does). */
const onTagDeleted = (state: ReleasesDraft, event: Extract<RepositoryEvent, { type: 'TagDeleted' }>): void => {
  if (event.data.via !== 'api') return;
  const tags = tableGet(state.releases.byProject, event.data.project_id);
  const id = tags === undefined ? undefined : tableGet(tags, event.data.name);
  if (id !== undefined) removeRelease(state, event.data.project_id, id);
};

/** A deleted project's releases go with it. */
const onProjectDeleted = (state: ReleasesDraft, event: Extract<ProjectEvent, { type: 'ProjectDeleted' }>): void => {
  const tags = tableGet(state.releases.byProject, event.data.id);
  if (!tags) return;
  for (const id of [...tableValues(tags)]) tableDelete(state.releases.byId, id);
  tableDelete(state.releases.byProject, event.data.id);
};

export type ReleasesFollowed = Extract<RepositoryEvent, { type: 'TagDeleted' }> | Extract<ProjectEvent, { type: 'ProjectDeleted' }>;

export const follows = { TagDeleted: onTagDeleted, ProjectDeleted: onProjectDeleted };
