/**
 * Releases (lib/api/releases.rb, lib/api/release/links.rb, 14.7) against a real server over real git: exact
 * bodies and statuses of raw calls, the events with their actor, the tags API's `release` field, a tag deleted
 * through the API taking its release along, and `GET /projects/:id/forks`; then the same through `@gitbeaker/rest`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { member, newDataDir, removeDir, start, type Running } from './support.js';

let server: Running;
let dataDir: string;
let project: { id: number; path_with_namespace: string };
let dev: { id: number; token: string };
let reporter: { id: number; token: string };
let guest: { id: number; token: string };
let sha: string;

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Shipping', initialize_with_readme: true, visibility: 'private' })).body;
  dev = await member(server, 'dev', { id: project.id, level: 30 });
  reporter = await member(server, 'reporter', { id: project.id, level: 20 });
  guest = await member(server, 'guest', { id: project.id, level: 10 });
  sha = (await server.call('GET', `/projects/${project.id}/repository/commits/main`)).body.id;
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

const base = () => `${server.url}/root/shipping`;

describe('releases API', () => {
  it('creates a release and its tag from ref (201, the exact body), records the events with the author', async () => {
    const before = server.events.length;
    const made = await server.call(
      'POST',
      `/projects/${project.id}/releases`,
      { tag_name: 'v1.0', ref: 'main', name: 'First', description: 'Notes', released_at: '2026-01-01T00:00:00Z', assets: { links: [{ name: 'binary', url: 'https://example.com/app', filepath: '/bin/app', link_type: 'package' }] } },
      dev.token,
    );
    expect(made.status).toBe(201);
    const web = base();
    expect(made.body).toEqual({
      name: 'First',
      tag_name: 'v1.0',
      description: 'Notes',
      created_at: made.body.created_at,
      released_at: '2026-01-01T00:00:00.000Z',
      author: { id: dev.id, username: 'dev', name: 'DEV', state: 'active', avatar_url: made.body.author.avatar_url, web_url: `${server.url}/dev` },
      commit: made.body.commit,
      upcoming_release: false,
      commit_path: `/root/shipping/-/commit/${sha}`,
      tag_path: '/root/shipping/-/tags/v1.0',
      assets: {
        count: 5,
        sources: ['zip', 'tar.gz', 'tar.bz2', 'tar'].map((format) => ({ format, url: `${web}/-/archive/v1.0/shipping-v1.0.${format}` })),
        links: [{ id: 1, name: 'binary', url: 'https://example.com/app', direct_asset_url: `${web}/-/releases/v1.0/downloads/bin/app`, external: true, link_type: 'package' }],
      },
      evidences: [],
      _links: { self: `${web}/-/releases/v1.0`, edit_url: `${web}/-/releases/v1.0/edit` },
    });
    expect(made.body.commit).toMatchObject({ id: sha, title: 'Initial commit' });
    // A first authenticated request of the day records the user's activity and the token's use: not the audit of interest.
    const recorded = server.events.slice(before).filter((event) => event.type !== 'UserActivityRecorded' && event.type !== 'AccessTokenUsed');
    expect(recorded.map((event) => event.type)).toEqual(['TagCreated', 'ReleaseCreated']);
    expect(recorded.every((event) => event.metadata.actorId === dev.id)).toBe(true);
    expect(recorded[1]!.data).toMatchObject({ tag: 'v1.0', sha, author_id: dev.id });
  });

  it('answers the platform’s refusals in its words', async () => {
    const url = `/projects/${project.id}/releases`;
    expect(await server.call('POST', url, { tag_name: 'v1.0', ref: 'main' }, dev.token)).toMatchObject({ status: 409, body: { message: 'Release already exists' } });
    expect(await server.call('POST', url, { tag_name: 'v2.0' }, dev.token)).toMatchObject({ status: 422, body: { message: 'Ref is not specified' } });
    expect(await server.call('POST', url, { tag_name: 'v2.0', ref: 'nowhere' }, dev.token)).toMatchObject({ status: 400, body: { message: 'Target nowhere is invalid' } });
    expect(await server.call('POST', url, { tag_name: 'v2.0', ref: 'main' }, reporter.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('POST', url, {}, dev.token)).toMatchObject({ status: 400, body: { error: 'tag_name is missing' } });
    expect(await server.call('POST', url, { tag_name: 'v2.0', ref: 'main', assets: { links: [{ name: 'x', url: 'javascript:alert(1)' }] } }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp' },
    });
    // Two links of one URL: `Release`'s `nested_attributes_duplicates`, not the link's uniqueness (no link is stored yet).
    const twice = { links: [{ name: 'a', url: 'https://example.com/app' }, { name: 'b', url: 'https://example.com/app' }] };
    expect(await server.call('POST', url, { tag_name: 'v2.0', ref: 'main', assets: twice }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'Validation failed: Links have duplicate values (https://example.com/app) for #<Release:0x0000000000000000> scope' },
    });
    expect(await server.call('POST', url, { tag_name: 'v2.0', ref: 'main', milestones: ['1.0'] }, dev.token)).toMatchObject({ status: 400, body: { message: 'Milestone(s) not found: 1.0' } });
    expect(await server.call('GET', `${url}?order_by=name`, undefined, dev.token)).toMatchObject({ status: 400, body: { error: 'order_by does not have a valid value' } });
    expect(await server.call('GET', `${url}/v9`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    expect(await server.call('PUT', `${url}/v9`, { name: 'x' }, dev.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await server.call('PUT', `${url}/v1.0`, {}, dev.token)).toMatchObject({ status: 400, body: { message: 'params is empty' } });
    expect(await server.call('GET', url, undefined, null)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    // A protected tag only maintainers may create: the developer is refused by TagCheck’s text, with 403.
    await server.call('POST', `/projects/${project.id}/protected_tags`, { name: 'prod-*', create_access_level: 40 });
    expect(await server.call('POST', url, { tag_name: 'prod-1', ref: 'main' }, dev.token)).toMatchObject({ status: 403, body: { message: 'You are not allowed to create this tag as it is protected.' } });
    // Nothing was made by the refusals.
    expect((await server.call('GET', `/projects/${project.id}/repository/tags`)).body.map((tag: { name: string }) => tag.name)).toEqual(['v1.0']);
  });

  it('lists by released_at or created_at, pages, and renders description_html on request', async () => {
    await server.call('POST', `/projects/${project.id}/releases`, { tag_name: 'v0.9', ref: 'main', description: '## Changes\n\n- one\n- two', released_at: '2025-06-01T00:00:00Z' }, dev.token);
    const list = await server.call('GET', `/projects/${project.id}/releases?per_page=1`, undefined, reporter.token);
    expect(list.status).toBe(200);
    expect(list.body.map((release: { tag_name: string }) => release.tag_name)).toEqual(['v1.0']);
    expect(list.headers.get('x-total')).toBe('2');
    expect(list.headers.get('x-next-page')).toBe('2');
    expect(Object.keys(list.body[0])).not.toContain('description_html');
    const created = await server.call('GET', `/projects/${project.id}/releases?order_by=created_at&sort=asc`, undefined, reporter.token);
    expect(created.body.map((release: { tag_name: string }) => release.tag_name)).toEqual(['v1.0', 'v0.9']);
    const shown = await server.call('GET', `/projects/${project.id}/releases/v0.9?include_html_description=true`, undefined, reporter.token);
    expect(shown.body.name).toBe('v0.9');
    expect(shown.body.description_html).toBe(
      '<h2 data-sourcepos="1:1-1:10" dir="auto">\n<a id="user-content-changes" class="anchor" href="#changes" aria-hidden="true"></a>Changes</h2>\n<ul data-sourcepos="3:1-4:5" dir="auto">\n<li data-sourcepos="3:1-3:5">one</li>\n<li data-sourcepos="4:1-4:5">two</li>\n</ul>',
    );
    // A reporter sees it all but may not edit (no edit_url).
    expect(shown.body._links).toEqual({ self: `${base()}/-/releases/v0.9` });
  });

  it('shows guests of a private project the releases without repository details, and refuses them a single one', async () => {
    const list = await server.call('GET', `/projects/${project.id}/releases`, undefined, guest.token);
    expect(list.status).toBe(200);
    const first = list.body[0];
    expect(first.name).toMatch(/^Release-\d+$/);
    for (const key of ['tag_name', 'commit', 'commit_path', 'tag_path', 'evidences']) expect(Object.keys(first)).not.toContain(key);
    expect(first.assets).toEqual({ count: 1, links: [expect.objectContaining({ name: 'binary' })] });
    expect(await server.call('GET', `/projects/${project.id}/releases/v1.0`, undefined, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('updates and deletes (the deleted release is the answer); the tag stays', async () => {
    const updated = await server.call('PUT', `/projects/${project.id}/releases/v0.9`, { name: 'Nine', released_at: '2099-01-01T00:00:00Z' }, dev.token);
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Nine', tag_name: 'v0.9', released_at: '2099-01-01T00:00:00.000Z', upcoming_release: true });
    const deleted = await server.call('DELETE', `/projects/${project.id}/releases/v0.9`, undefined, dev.token);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ name: 'Nine', tag_name: 'v0.9' });
    expect(server.events.at(-1)).toMatchObject({ type: 'ReleaseDeleted', metadata: { actorId: dev.id } });
    expect(await server.call('GET', `/projects/${project.id}/releases/v0.9`)).toMatchObject({ status: 404 });
    expect((await server.call('GET', `/projects/${project.id}/repository/tags/v0.9`)).body).toMatchObject({ name: 'v0.9', release: null });
  });

  it('asset links: list, get, create, update, delete with the model’s errors', async () => {
    const links = `/projects/${project.id}/releases/v1.0/assets/links`;
    const made = await server.call('POST', links, { name: 'docs', url: `${base()}/-/wikis/home` }, dev.token);
    expect(made).toMatchObject({ status: 201, body: { id: 2, name: 'docs', url: `${base()}/-/wikis/home`, direct_asset_url: `${base()}/-/wikis/home`, external: false, link_type: 'other' } });
    expect(await server.call('POST', links, { name: 'docs', url: 'https://example.com/app' }, dev.token)).toMatchObject({
      status: 400,
      body: { message: { url: ['has already been taken'], name: ['has already been taken'] } },
    });
    expect((await server.call('GET', links, undefined, reporter.token)).body.map((link: { name: string }) => link.name)).toEqual(['docs', 'binary']);
    expect(await server.call('GET', `${links}/2`, undefined, reporter.token)).toMatchObject({ status: 200, body: { name: 'docs' } });
    expect(await server.call('GET', `${links}/99`, undefined, reporter.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('PUT', `${links}/2`, { link_type: 'runbook' }, dev.token)).toMatchObject({ status: 400, body: { error: 'name, url are missing, at least one parameter must be provided' } });
    expect(await server.call('PUT', `${links}/2`, { name: 'manual' }, dev.token)).toMatchObject({ status: 200, body: { name: 'manual' } });
    expect(await server.call('DELETE', `${links}/2`, undefined, reporter.token)).toMatchObject({ status: 403 });
    expect(await server.call('DELETE', `${links}/2`, undefined, dev.token)).toMatchObject({ status: 200, body: { id: 2, name: 'manual' } });
    expect(await server.call('GET', `/projects/${project.id}/releases/v7/assets/links`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  it('asset link file paths: Releases::Link’s format, length and uniqueness (blank ones skip all three), kept as sent', async () => {
    const releases = `/projects/${project.id}/releases`;
    const links = `${releases}/v5.0/assets/links`;
    const downloads = `${base()}/-/releases/v5.0/downloads`;
    const tooLong = 'is too long (maximum is 128 characters)';
    // On a new release: each link's own errors, then (none on a file path) `nested_attributes_duplicates`, where two
    // empty file paths are duplicates ("" is truthy in Ruby; nil is not).
    expect(await server.call('POST', releases, { tag_name: 'v5.0', ref: 'main', assets: { links: [{ name: 'a', url: 'https://example.com/a', filepath: `/${'x'.repeat(128)}-` }] } }, dev.token)).toMatchObject({
      status: 400,
      body: { message: `Validation failed: Links filepath is in an invalid format, Links filepath ${tooLong}` },
    });
    const twoEmpty = { links: [{ name: 'a', url: 'https://example.com/a', filepath: '' }, { name: 'b', url: 'https://example.com/b', filepath: '' }] };
    expect(await server.call('POST', releases, { tag_name: 'v5.0', ref: 'main', assets: twoEmpty }, dev.token)).toMatchObject({
      status: 400,
      body: { message: 'Validation failed: Links have duplicate values () for #<Release:0x0000000000000000> scope' },
    });
    const made = await server.call('POST', releases, { tag_name: 'v5.0', ref: 'main', assets: { links: [{ name: 'a', url: 'https://example.com/a', filepath: '' }, { name: 'b', url: 'https://example.com/b' }] } }, dev.token);
    expect(made.status).toBe(201);
    // A file path kept as "" still makes a download URL (the entity tests for nil only): `downloads/*filepath` with an
    // empty glob, the slash kept.
    expect(made.body.assets.links.map((link: { name: string; direct_asset_url: string }) => [link.name, link.direct_asset_url])).toEqual([
      ['b', 'https://example.com/b'],
      ['a', `${downloads}/`],
    ]);
    // The links API: `FILEPATH_REGEX` (after the slash any character but a slash, no `//`, ending in a letter or digit).
    const post = (filepath: unknown, name = 'c') => server.call('POST', links, { name, url: `https://example.com/${name}`, filepath }, dev.token);
    for (const filepath of ['/bin/app-', '/bin/app.', '/bin/app_', '/ab', '/bin//app', 'bin/app']) {
      expect(await post(filepath), filepath).toMatchObject({ status: 400, body: { message: { filepath: ['is in an invalid format'] } } });
    }
    expect(await post(`/${'x'.repeat(128)}`)).toMatchObject({ status: 400, body: { message: { filepath: [tooLong] } } });
    expect(await post(`/${'x'.repeat(127)}`)).toMatchObject({ status: 201, body: { direct_asset_url: `${downloads}/${'x'.repeat(127)}` } });
    // The route helper escapes the glob as a path (`escape_path`): a `?` is no query string.
    expect(await post('/?b1', 'd')).toMatchObject({ status: 201, body: { direct_asset_url: `${downloads}/%3Fb1` } });
    expect(await post('/?b1', 'e')).toMatchObject({ status: 400, body: { message: { filepath: ['has already been taken'] } } });
    // A second empty file path is no duplicate for the link's own uniqueness (`allow_blank`).
    const blank = await post('', 'f');
    expect(blank).toMatchObject({ status: 201, body: { direct_asset_url: `${downloads}/` } });
    // A blank one of spaces is kept too (no check applies), its download URL escaped.
    expect(await post('  ', 'h')).toMatchObject({ status: 201, body: { direct_asset_url: `${downloads}/%20%20` } });
    // Updated to "" it is kept as ""; to null, the link has no file path.
    const id = (await post('/bin/g1', 'g')).body.id;
    expect(await server.call('PUT', `${links}/${id}`, { name: 'g', filepath: '' }, dev.token)).toMatchObject({ status: 200, body: { direct_asset_url: `${downloads}/` } });
    expect(await server.call('PUT', `${links}/${id}`, { name: 'g', filepath: null }, dev.token)).toMatchObject({ status: 200, body: { direct_asset_url: 'https://example.com/g' } });
    expect(await server.call('PUT', `${links}/${blank.body.id}`, { name: 'f', filepath: '/bin/app-' }, dev.token)).toMatchObject({ status: 400, body: { message: { filepath: ['is in an invalid format'] } } });
  });

  it('the tags API shows the release; deleting the tag through the API takes the release along', async () => {
    const tag = await server.call('GET', `/projects/${project.id}/repository/tags/v1.0`, undefined, dev.token);
    expect(tag.body.release).toEqual({ tag_name: 'v1.0', description: 'Notes' });
    expect((await server.call('GET', `/projects/${project.id}/repository/tags`, undefined, dev.token)).body.find((t: { name: string }) => t.name === 'v1.0').release).toEqual({ tag_name: 'v1.0', description: 'Notes' });
    expect((await server.call('DELETE', `/projects/${project.id}/repository/tags/v1.0`, undefined, dev.token)).status).toBe(204);
    expect(await server.call('GET', `/projects/${project.id}/releases/v1.0`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
    // `release_description` was removed in 14.0 and is ignored.
    const again = await server.call('POST', `/projects/${project.id}/repository/tags`, { tag_name: 'v1.0', ref: 'main', release_description: 'ignored' }, dev.token);
    expect(again).toMatchObject({ status: 201, body: { name: 'v1.0', release: null } });
  });
});

describe('GET /projects/:id/forks', () => {
  it('lists the visible forks with the project list’s filters', async () => {
    const source = (await server.call('POST', '/projects', { name: 'Upstream', initialize_with_readme: true, visibility: 'public' })).body;
    const mine = (await server.call('POST', `/projects/${source.id}/fork`, {}, dev.token)).body;
    const hidden = (await server.call('POST', `/projects/${source.id}/fork`, { path: 'upstream-secret', name: 'Upstream secret', visibility: 'private' }, reporter.token)).body;
    const asDev = await server.call('GET', `/projects/${source.id}/forks`, undefined, dev.token);
    expect(asDev.status).toBe(200);
    expect(asDev.body.map((p: { id: number }) => p.id)).toEqual([mine.id]);
    expect(asDev.body[0].forked_from_project).toMatchObject({ id: source.id });
    expect((await server.call('GET', `/projects/${source.id}/forks?order_by=id&sort=asc`)).body.map((p: { id: number }) => p.id)).toEqual([mine.id, hidden.id]);
    expect((await server.call('GET', `/projects/${source.id}/forks?visibility=private`)).body.map((p: { id: number }) => p.id)).toEqual([hidden.id]);
    expect((await server.call('GET', `/projects/${source.id}/forks?search=secret`)).body.map((p: { id: number }) => p.id)).toEqual([hidden.id]);
    expect((await server.call('GET', `/projects/${source.id}/forks`, undefined, null)).body.map((p: { id: number }) => p.id)).toEqual([mine.id]);
    expect(await server.call('GET', `/projects/${project.id}/forks`, undefined, null)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });
});

describe('@gitbeaker/rest: ProjectReleases, ReleaseLinks, Projects.allForks', () => {
  it('works unmodified', async () => {
    const api = new Gitlab({ host: server.url, token: dev.token });
    const release = await api.ProjectReleases.create(project.id, { tagName: 'v3.0', ref: 'main', name: 'Three', description: 'Third', assets: { links: [{ name: 'pkg', url: 'https://example.com/pkg' }] } });
    expect(release).toMatchObject({ tag_name: 'v3.0', name: 'Three' });
    expect((await api.ProjectReleases.all(project.id)).map((r) => r.tag_name)).toContain('v3.0');
    expect(await api.ProjectReleases.show(project.id, 'v3.0')).toMatchObject({ description: 'Third' });
    expect(await api.ProjectReleases.edit(project.id, 'v3.0', { description: 'Third, edited' })).toMatchObject({ description: 'Third, edited' });
    const link = await api.ReleaseLinks.create(project.id, 'v3.0', 'docs', 'https://example.com/docs', { linkType: 'runbook' });
    expect(link).toMatchObject({ name: 'docs', link_type: 'runbook' });
    expect((await api.ReleaseLinks.all(project.id, 'v3.0')).map((l) => l.name)).toEqual(['docs', 'pkg']);
    expect(await api.ReleaseLinks.show(project.id, 'v3.0', link.id as number)).toMatchObject({ name: 'docs' });
    expect(await api.ReleaseLinks.edit(project.id, 'v3.0', link.id as number, { name: 'handbook' })).toMatchObject({ name: 'handbook' });
    await api.ReleaseLinks.remove(project.id, 'v3.0', link.id as number);
    await api.ProjectReleases.remove(project.id, 'v3.0');
    await expect(api.ProjectReleases.show(project.id, 'v3.0')).rejects.toThrow();
    const source = (await api.Projects.create({ name: 'Forkable', initializeWithReadme: true, visibility: 'internal' })) as unknown as { id: number };
    const fork = (await new Gitlab({ host: server.url, token: reporter.token }).Projects.fork(source.id)) as unknown as { id: number };
    expect((await api.Projects.allForks(source.id)).map((p) => p.id)).toEqual([fork.id]);
  });
});
