/** Reads over the snippets projection, and `ProjectSnippetPolicy`. */
import { tableGet, tableValues } from '../../kernel/table.js';
import { canOnProject, canReadProject, effectiveProjectAccess, isAdmin, seesInternal, type AccessView } from '../access/abilities.js';
import type { Project } from '../projects/projection.js';
import type { Snippet, SnippetsSlice } from './projection.js';

export const findSnippet = (snippets: SnippetsSlice, projectId: number, id: number): Snippet | undefined => {
  const snippet = tableGet(snippets.byId, id);
  return snippet && snippet.project_id === projectId ? snippet : undefined;
};

/** A project's snippets, newest first (the API's order). */
export const snippetsOf = (snippets: SnippetsSlice, projectId: number): Snippet[] => {
  const ids = tableGet(snippets.byProject, projectId);
  if (!ids) return [];
  const out: Snippet[] = [];
  for (const id of tableValues(ids)) {
    const snippet = tableGet(snippets.byId, id);
    if (snippet) out.push(snippet);
  }
  return out.reverse();
};

/**
 * `read_project_snippet`: the project must be readable; a private snippet is for its author and the project's
 * members (Guests included) and administrators; an internal one for signed-in users; a public one for all.
 */
export const canReadSnippet = (state: AccessView, userId: number | null, project: Project, snippet: Snippet): boolean => {
  if (!canReadProject(state, userId, project)) return false;
  if (snippet.visibility === 'public') return true;
  if (userId === null) return false;
  // ProjectSnippetPolicy: `internal & ~external_user`.
  if ((snippet.visibility === 'internal' && seesInternal(state, userId)) || snippet.author_id === userId || isAdmin(state, userId)) return true;
  return effectiveProjectAccess(state, userId, project) > 0;
};

/** `create_snippet`: Reporters and above. */
export const canCreateSnippet = (state: AccessView, userId: number | null, project: Project): boolean => userId !== null && canOnProject(state, userId, 'create_snippet', project);

/**
 * `update_snippet` (ProjectSnippetPolicy 14.x): Maintainers and administrators, and the author whatever their role
 * now, as long as they read the project (`is_author` enables it; only `admin_snippet` asks the author for Reporter).
 */
export const canUpdateSnippet = (state: AccessView, userId: number | null, project: Project, snippet: Snippet): boolean =>
  userId !== null && (canOnProject(state, userId, 'admin_snippet', project) || (snippet.author_id === userId && canReadProject(state, userId, project)));

/** `admin_snippet` (deletion): Maintainers and administrators, and the author while still a Reporter (`is_author & ~project.reporter & ~admin` prevents it). */
export const canDestroySnippet = (state: AccessView, userId: number | null, project: Project, snippet: Snippet): boolean =>
  userId !== null && (canOnProject(state, userId, 'admin_snippet', project) || (snippet.author_id === userId && canOnProject(state, userId, 'create_snippet', project)));
