/** The snippets module's evolve; a deleted project takes its snippets along. */
import { emptyTable, tableDelete, tableGet, tableSet, tableValues } from '../../kernel/table.js';
import type { Writable } from '../../kernel/module.js';
import type { ProjectEvent } from '../projects/events.js';
import type { SnippetEvent } from './events.js';
import type { SnippetsSlice } from './projection.js';

export type SnippetsDraft = Writable<{ readonly snippets: SnippetsSlice }, 'snippets'>;
export type SnippetsFollowed = Extract<ProjectEvent, { type: 'ProjectDeleted' }>;

export const evolve = (state: SnippetsDraft, event: SnippetEvent): void => {
  switch (event.type) {
    case 'SnippetCreated': {
      const data = event.data;
      tableSet(state.snippets.byId, data.id, { ...data, updated_at: data.created_at });
      if (!tableGet(state.snippets.byProject, data.project_id)) tableSet(state.snippets.byProject, data.project_id, emptyTable<number>());
      tableSet(tableGet(state.snippets.byProject, data.project_id)!, data.id, data.id);
      if (data.id > state.snippets.sequence) state.snippets.sequence = data.id;
      return;
    }
    case 'SnippetUpdated': {
      const snippet = tableGet(state.snippets.byId, event.data.id);
      if (!snippet) return;
      const { project_id: _p, id: _i, ...changes } = event.data;
      Object.assign(snippet, changes);
      return;
    }
    case 'SnippetDeleted': {
      tableDelete(state.snippets.byId, event.data.id);
      const ids = tableGet(state.snippets.byProject, event.data.project_id);
      if (ids) tableDelete(ids, event.data.id);
      return;
    }
  }
};

export const follows = {
  ProjectDeleted: (state: SnippetsDraft, event: SnippetsFollowed): void => {
    const ids = tableGet(state.snippets.byProject, event.data.id);
    if (!ids) return;
    for (const id of [...tableValues(ids)]) tableDelete(state.snippets.byId, id);
    tableDelete(state.snippets.byProject, event.data.id);
  },
};
