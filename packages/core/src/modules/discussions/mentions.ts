/**
 * Cross-references ("mentioned in …", `Mentionable#create_cross_references!`, `SystemNotes::IssuablesService
 * #cross_reference`, 14.x) as projections of the events that carry text. A mentioner's text (an issue's or merge
 * request's title and description, a note's body) is scanned for references to issues and merge requests
 * (`#1`, `!2`, `project#3`, `group/project!4`, their URLs); each one the mentioner's author may read (the
 * `ReferenceExtractor` runs as that user, at that point of the log) gets one system note on the referenced
 * noteable naming the mentioner ("mentioned in issue #1"), once per (target, body) pair as `cross_reference_exists?`
 * checks. The note remembers its mentioner so that readers who may not read it do not see the note
 * (`Note#cross_reference_not_visible_for?`).
 */
import { findEpicById } from '../epics/queries.js';
import { findGroup } from '../groups/queries.js';
import { findProject, findProjectByFullPath, projectReferenceBase } from '../projects/queries.js';
import type { Project } from '../projects/projection.js';
import type { NoteableRef } from './commands.js';
import type { NoteableData } from './events.js';
import type { DiscussionsView } from './projection.js';
import { findNoteable, type Noteable } from './queries.js';

const SEGMENT = '[A-Za-z0-9_.][A-Za-z0-9_.-]*';
const PATH = `${SEGMENT}(?:\\/${SEGMENT})*`;
/** `Issue.link_reference_pattern`, `MergeRequest.link_reference_pattern` (the instance's URL is not in the log: any http(s) host). */
const URL_REFERENCE = new RegExp(`https?:\\/\\/[^\\s\\/<>"'()\\[\\]]+\\/(${SEGMENT}(?:\\/${SEGMENT})+)\\/(?:-\\/)?(issues|merge_requests)\\/(\\d+)(?![\\w])`, 'g');
/** `Issue.reference_pattern`, `MergeRequest.reference_pattern`: an optional project path, `#` or `!`, the iid. */
const SHORT_REFERENCE = new RegExp(`(?<![A-Za-z0-9_.\\/&-])(?:(${PATH}))?([#!])(\\d+)(?![\\w])`, 'g');

/** Code is not rendered as references: fenced blocks and inline code spans are left out. */
export const withoutCode = (text: string): string => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?(?:^\1[^\n]*$|(?![\s\S]))/gm, ' ').replace(/(`+)[^`]*?\1/g, ' ');

interface Found {
  readonly kind: 'Issue' | 'MergeRequest';
  readonly path: string | null;
  readonly iid: number;
}

/** The issues and merge requests a text references, issues first, each once (`refs.issues + refs.merge_requests`). */
const scan = (text: string): Found[] => {
  const found: Found[] = [];
  let rest = withoutCode(text);
  rest = rest.replace(URL_REFERENCE, (_match, path: string, kind: string, iid: string) => {
    found.push({ kind: kind === 'issues' ? 'Issue' : 'MergeRequest', path, iid: Number(iid) });
    return ' ';
  });
  for (const match of rest.matchAll(SHORT_REFERENCE)) found.push({ kind: match[2] === '#' ? 'Issue' : 'MergeRequest', path: match[1] ?? null, iid: Number(match[3]) });
  return [...found.filter((ref) => ref.kind === 'Issue'), ...found.filter((ref) => ref.kind === 'MergeRequest')];
};

/** `full_project_path`: a path without a namespace is a project in the context project's namespace. */
const projectOf = (state: DiscussionsView, path: string | null, context: Project | null): Project | undefined => {
  if (path === null) return context ?? undefined;
  if (path.includes('/')) return findProjectByFullPath(state.projects, path);
  if (!context) return undefined;
  const namespace = context.path_with_namespace.slice(0, context.path_with_namespace.length - context.path.length - 1);
  return findProjectByFullPath(state.projects, `${namespace}/${path}`);
};

/** The referenced noteables that exist, in order, once each. */
export const referencedNoteables = (state: DiscussionsView, text: string, context: Project | null): Noteable[] => {
  const out: Noteable[] = [];
  const seen = new Set<string>();
  for (const ref of scan(text)) {
    const project = projectOf(state, ref.path, context);
    if (!project) continue;
    const noteable = findNoteable(state, { kind: ref.kind, project_id: project.id, iid: ref.iid });
    if (!noteable || seen.has(noteable.key)) continue;
    seen.add(noteable.key);
    out.push(noteable);
  }
  return out;
};


/**
 * `Mentionable#gfm_reference(from)` of the mentioner as seen from the target's project: "issue #1", "merge request
 * other!2", "project snippet $3", "commit group/project@<sha>", "epic group&1".
 */
export const gfmReference = (state: DiscussionsView, mentioner: NoteableData, from: Project): string | null => {
  if (mentioner.type === 'Epic') {
    const epic = mentioner.id === null ? undefined : findEpicById(state.epics, mentioner.id);
    if (!epic) return null;
    // `Epic#to_reference`: the group's full path unless `from` is one of the group's own projects.
    const inGroup = from.namespace_kind === 'group' && from.namespace_id === epic.group_id;
    return inGroup ? `epic &${epic.iid}` : `epic ${findGroup(state.groups, epic.group_id)?.full_path ?? ''}&${epic.iid}`;
  }
  const project = mentioner.project_id === null ? undefined : findProject(state.projects, mentioner.project_id);
  if (!project) return null;
  const base = projectReferenceBase(project, from);
  switch (mentioner.type) {
    case 'Issue':
      return `issue ${base}#${mentioner.iid}`;
    case 'MergeRequest':
      return `merge request ${base}!${mentioner.iid}`;
    case 'Snippet':
      return `project snippet ${base}$${mentioner.id}`;
    case 'Commit':
      return `commit ${base === '' ? '' : `${base}@`}${mentioner.commit_sha}`;
  }
};

/** The API's reference to a noteable recorded in events. */
export const refOfNoteable = (data: NoteableData): NoteableRef | null => {
  switch (data.type) {
    case 'Issue':
    case 'MergeRequest':
      return data.project_id !== null && data.iid !== null ? { kind: data.type, project_id: data.project_id, iid: data.iid } : null;
    case 'Snippet':
      return data.project_id !== null && data.id !== null ? { kind: 'Snippet', project_id: data.project_id, id: data.id } : null;
    case 'Epic':
      return data.group_id !== null && data.id !== null ? { kind: 'Epic', group_id: data.group_id, id: data.id } : null;
    case 'Commit':
      return data.project_id !== null && data.commit_sha !== null ? { kind: 'Commit', project_id: data.project_id, sha: data.commit_sha } : null;
  }
};
