/** `Entities::Release` and `Entities::Releases::Link` (lib/api/entities, 14.7) with `ReleasePresenter`'s URLs. */
import { canRelease, canRepository, findUser, sortedLinks, type Project, type Release, type ReleaseLink } from '@forgefold/core';
import type { Commit } from '@forgefold/git';
import { encodeUriComponentSafely, escapePath } from '../../http/index.js';
import type { PresentContext } from '../context.js';
import { commitEntity, projectWebUrl } from '../repositories/entities.js';
import { userBasic } from '../users/entities.js';
import { renderMarkdown } from './markdown.js';

/** `Releases::Source::FORMATS`. */
const SOURCE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

const releaseUrl = (release: Release, project: Project, ctx: PresentContext): string => `${projectWebUrl(project, ctx)}/-/releases/${encodeUriComponentSafely(release.tag)}`;

/**
 * `ReleasePresenter#download_url`: the file path without its leading slash as the `downloads/*filepath` glob of the
 * route helper, which escapes it as a path. A blank one (kept as sent) still makes one: "" ends in `downloads/`.
 */
const downloadUrl = (filepath: string, release: Release, project: Project, ctx: PresentContext): string =>
  `${releaseUrl(release, project, ctx)}/downloads/${escapePath(filepath.replace(/^\//, ''))}`;

/**
 * `Entities::Releases::Link`: `external` unless the URL is inside the project; `direct_asset_url` by the file path
 * (`return object.url unless object.filepath`: nil only, an empty one still makes a download URL).
 */
export const releaseLinkEntity = (link: ReleaseLink, release: Release, project: Project, ctx: PresentContext) => ({
  id: link.id,
  name: link.name,
  url: link.url,
  direct_asset_url: link.filepath !== null ? downloadUrl(link.filepath, release, project, ctx) : link.url,
  external: !link.url.startsWith(projectWebUrl(project, ctx)),
  link_type: link.link_type,
});

export interface ReleasePresentOptions {
  readonly commit: Commit | null;
  readonly includeHtmlDescription?: boolean;
  /** The moment "now" for `upcoming_release` (the injected clock). */
  readonly now: string;
}

/**
 * `Entities::Release`: who cannot `download_code` (a guest on a private project) sees neither the tag, the commit
 * nor the sources, and the name as `Release-<id>`. Milestones are not kept (none are shown); evidence is not
 * collected (an empty list).
 */
export const releaseEntity = (release: Release, project: Project, ctx: PresentContext, options: ReleasePresentOptions) => {
  const code = canRepository(ctx.state, ctx.viewerId, project, 'download_code');
  const author = release.author_id === null ? undefined : findUser(ctx.state.users, release.author_id);
  const web = projectWebUrl(project, ctx);
  const links = sortedLinks(release).map((link) => releaseLinkEntity(link, release, project, ctx));
  const archive = `${project.path}-${release.tag.replace(/\//g, '-')}`;
  return {
    name: code ? (release.name ?? release.tag) : `Release-${release.id}`,
    ...(code ? { tag_name: release.tag } : {}),
    description: release.description,
    ...(options.includeHtmlDescription ? { description_html: renderMarkdown(release.description) } : {}),
    created_at: release.created_at,
    released_at: release.released_at,
    ...(author ? { author: userBasic(author, ctx) } : {}),
    ...(code ? { commit: options.commit ? commitEntity(options.commit, project, ctx) : null } : {}),
    upcoming_release: Date.parse(release.released_at) > Date.parse(options.now),
    ...(code && options.commit ? { commit_path: `/${project.path_with_namespace}/-/commit/${options.commit.id}` } : {}),
    ...(code ? { tag_path: `/${project.path_with_namespace}/-/tags/${encodeUriComponentSafely(release.tag)}` } : {}),
    assets: {
      count: links.length + (code ? SOURCE_FORMATS.length : 0),
      ...(code ? { sources: SOURCE_FORMATS.map((format) => ({ format, url: `${web}/-/archive/${release.tag}/${archive}.${format}` })) } : {}),
      links,
    },
    ...(code ? { evidences: [] } : {}),
    _links: {
      self: releaseUrl(release, project, ctx),
      ...(canRelease(ctx.state, ctx.viewerId, project, 'update_release', release.tag) ? { edit_url: `${releaseUrl(release, project, ctx)}/edit` } : {}),
    },
  };
};

/** The tags API's `release` (`Entities::TagRelease`). */
export const tagReleaseEntity = (release: Release | undefined) => (release ? { tag_name: release.tag, description: release.description } : null);
