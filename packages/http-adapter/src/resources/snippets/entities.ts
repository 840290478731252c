/** `Entities::ProjectSnippet` (14.7). The snippet's repository branch is `main` in the raw URLs. */
import { findUser, type Project, type Snippet } from '@forgefold/core';
import type { PresentContext } from '../context.js';
import { userBasic } from '../users/entities.js';
import { projectWebUrl } from '../repositories/entities.js';

export const SNIPPET_REF = 'main';

export const snippetEntity = (snippet: Snippet, project: Project, ctx: PresentContext) => {
  const author = snippet.author_id === null ? undefined : findUser(ctx.state.users, snippet.author_id);
  const webUrl = `${projectWebUrl(project, ctx)}/-/snippets/${snippet.id}`;
  return {
    id: snippet.id,
    title: snippet.title,
    description: snippet.description,
    visibility: snippet.visibility,
    author: author ? userBasic(author, ctx) : null,
    updated_at: snippet.updated_at,
    created_at: snippet.created_at,
    project_id: snippet.project_id,
    web_url: webUrl,
    raw_url: `${webUrl}/raw`,
    // `Gitlab::Shell.url_to_repo` of the snippet's repository (`<project>/snippets/<id>`), as the project's own.
    ssh_url_to_repo: `git@${new URL(ctx.baseUrl).hostname}:${project.path_with_namespace}/snippets/${snippet.id}.git`,
    http_url_to_repo: `${ctx.baseUrl}/${project.path_with_namespace}/snippets/${snippet.id}.git`,
    file_name: snippet.files[0]?.path ?? null,
    files: snippet.files.map((file) => ({ path: file.path, raw_url: `${webUrl}/raw/${SNIPPET_REF}/${file.path}` })),
  };
};
