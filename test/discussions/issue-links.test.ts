/**
 * Issue links (lib/api/issue_links.rb, 14.7 with EE's `blocks`): list, link, unlink, as python-gitlab's
 * `issue.links` drives them; the answers and texts of `IssueLinks::CreateService` and `DestroyService`, the system
 * notes on both issues, `blocking_issues_count`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, start, type Running } from '../repositories/support.js';

let server: Running;
let dataDir: string;
let project: { id: number; path_with_namespace: string };
let guest: { id: number; token: string };
let dev: { id: number; token: string };

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
  project = (await server.call('POST', '/projects', { name: 'Linked', visibility: 'public' })).body;
  guest = await member(server, 'link-guest', { id: project.id, level: 10 });
  dev = await member(server, 'link-dev', { id: project.id, level: 30 });
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

const base = () => `/projects/${project.id}/issues`;
const systemNotes = async (iid: number) =>
  ((await server.call('GET', `${base()}/${iid}/notes?sort=asc`)).body as { body: string; system: boolean }[]).filter((note) => note.system).map((note) => note.body);

describe('issue links', () => {
  it('links, lists from both sides, refuses what the services refuse, and unlinks', async () => {
    const [a, b, c] = await Promise.all(['A', 'B', 'C'].map(async (title) => (await server.call('POST', base(), { title }, dev.token)).body as { iid: number; id: number }));
    const link = (from: number, body: object, token = dev.token) => server.call('POST', `${base()}/${from}/links`, body, token);

    const created = await link(a!.iid, { target_project_id: project.id, target_issue_iid: b!.iid });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ source_issue: { iid: a!.iid, title: 'A' }, target_issue: { iid: b!.iid, title: 'B' }, link_type: 'relates_to' });
    for (const field of ['_links', 'subscribed', 'references']) expect(created.body.source_issue).not.toHaveProperty(field);

    // Either way round, again, is a 409; the issue itself a 422; a Guest may not link (a 404, as the service says).
    expect(await link(a!.iid, { target_project_id: project.id, target_issue_iid: b!.iid })).toMatchObject({ status: 409, body: { message: 'Issue(s) already assigned' } });
    expect(await link(b!.iid, { target_project_id: String(project.id), target_issue_iid: a!.iid })).toMatchObject({ status: 409, body: { message: 'Issue(s) already assigned' } });
    expect(await link(a!.iid, { target_project_id: project.id, target_issue_iid: a!.iid })).toMatchObject({ status: 422, body: { message: `#${a!.iid} cannot be added: cannot be related to itself` } });
    expect(await link(a!.iid, { target_project_id: project.id, target_issue_iid: c!.iid }, guest.token)).toMatchObject({
      status: 404,
      body: { message: 'No matching issue found. Make sure that you are adding a valid issue URL.' },
    });
    // Lookups and parameters.
    expect(await link(a!.iid, { target_project_id: project.id, target_issue_iid: 999 })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await link(a!.iid, { target_project_id: 'nowhere/none', target_issue_iid: c!.iid })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await link(a!.iid, { target_project_id: project.id, target_issue_iid: c!.iid, link_type: 'is_blocked_by' })).toMatchObject({ status: 400, body: { error: 'link_type does not have a valid value' } });
    expect(await link(a!.iid, { target_project_id: project.id })).toMatchObject({ status: 400, body: { error: 'target_issue_iid is missing' } });
    expect(await link(a!.iid, { target_project_id: project.id, target_issue_iid: c!.iid }, null as unknown as string)).toMatchObject({ status: 401 });

    // B blocks C, the target found by the project's path: C sees it as `is_blocked_by` and counts one blocking issue.
    expect((await link(b!.iid, { target_project_id: project.path_with_namespace, target_issue_iid: c!.iid, link_type: 'blocks' })).body.link_type).toBe('blocks');
    const linksOf = async (iid: number) => ((await server.call('GET', `${base()}/${iid}/links`, undefined, guest.token)).body as { iid: number; link_type: string; issue_link_id: number; link_created_at: string }[]);
    expect((await linksOf(b!.iid)).map((entry) => [entry.iid, entry.link_type])).toEqual([
      [a!.iid, 'relates_to'],
      [c!.iid, 'blocks'],
    ]);
    expect((await linksOf(c!.iid)).map((entry) => [entry.iid, entry.link_type])).toEqual([[b!.iid, 'is_blocked_by']]);
    expect((await linksOf(c!.iid))[0]).toHaveProperty('link_created_at');
    // `blocking_issues_count`: the open issues this one blocks.
    const blocking = async (iid: number) => (await server.call('GET', `${base()}/${iid}`)).body.blocking_issues_count;
    expect([await blocking(b!.iid), await blocking(c!.iid)]).toEqual([1, 0]);
    await server.call('PUT', `${base()}/${c!.iid}`, { state_event: 'close' }, dev.token);
    expect(await blocking(b!.iid)).toBe(0);
    // A Guest asking again for a link that exists hears that first.
    expect(await link(b!.iid, { target_project_id: project.id, target_issue_iid: a!.iid }, guest.token)).toMatchObject({ status: 409, body: { message: 'Issue(s) already assigned' } });

    // One system note on each side.
    expect(await systemNotes(a!.iid)).toContain(`marked this issue as related to #${b!.iid}`);
    expect(await systemNotes(b!.iid)).toEqual(expect.arrayContaining([`marked this issue as related to #${a!.iid}`, `marked this issue as related to #${c!.iid}`]));

    // Unlinking: a Guest may not; a Developer does (200 with the link); then it is gone.
    const linkId = (await linksOf(a!.iid))[0]!.issue_link_id;
    expect(await server.call('DELETE', `${base()}/${a!.iid}/links/${linkId}`, undefined, guest.token)).toMatchObject({ status: 404, body: { message: 'No Issue Link found' } });
    const removed = await server.call('DELETE', `${base()}/${a!.iid}/links/${linkId}`, undefined, dev.token);
    expect(removed).toMatchObject({ status: 200, body: { source_issue: { iid: a!.iid }, target_issue: { iid: b!.iid }, link_type: 'relates_to' } });
    expect(await linksOf(a!.iid)).toEqual([]);
    expect(await systemNotes(b!.iid)).toContain(`removed the relation with #${a!.iid}`);
    expect(await server.call('DELETE', `${base()}/${a!.iid}/links/${linkId}`, undefined, dev.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await server.call('DELETE', `${base()}/${a!.iid}/links/abc`, undefined, dev.token)).toMatchObject({ status: 400, body: { error: 'issue_link_id is invalid' } });
  });

  it('hides links to issues the reader may not read, and deleting an issue takes its links along', async () => {
    const open = (await server.call('POST', base(), { title: 'Open' }, dev.token)).body;
    const secret = (await server.call('POST', base(), { title: 'Secret', confidential: true }, dev.token)).body;
    const doomed = (await server.call('POST', base(), { title: 'Doomed' }, dev.token)).body;
    for (const target of [secret, doomed]) expect((await server.call('POST', `${base()}/${open.iid}/links`, { target_project_id: project.id, target_issue_iid: target.iid }, dev.token)).status).toBe(201);
    const titles = async (token: string) => ((await server.call('GET', `${base()}/${open.iid}/links`, undefined, token)).body as { title: string }[]).map((issue) => issue.title);
    expect(await titles(dev.token)).toEqual(['Secret', 'Doomed']);
    expect(await titles(guest.token)).toEqual(['Doomed']);
    // The note that names the confidential issue is hidden from whoever may not read it.
    const notes = async (token: string) => ((await server.call('GET', `${base()}/${open.iid}/notes?sort=asc`, undefined, token)).body as { body: string }[]).map((note) => note.body);
    expect(await notes(dev.token)).toEqual([`marked this issue as related to #${secret.iid}`, `marked this issue as related to #${doomed.iid}`]);
    expect(await notes(guest.token)).toEqual([`marked this issue as related to #${doomed.iid}`]);
    // Another project of the same namespace: its path in the note, and in `references.relative` of the list.
    const other = (await server.call('POST', '/projects', { name: 'Other', visibility: 'public' })).body;
    const elsewhere = (await server.call('POST', `/projects/${other.id}/issues`, { title: 'Elsewhere' })).body;
    expect((await server.call('POST', `${base()}/${open.iid}/links`, { target_project_id: other.id, target_issue_iid: elsewhere.iid })).status).toBe(201);
    const listed = (await server.call('GET', `${base()}/${open.iid}/links`)).body as { title: string; references: { relative: string; short: string } }[];
    expect(listed.find((issue) => issue.title === 'Elsewhere')!.references).toMatchObject({ short: `#${elsewhere.iid}`, relative: `other#${elsewhere.iid}` });
    expect((await notes(dev.token)).at(-1)).toBe(`marked this issue as related to other#${elsewhere.iid}`);
    expect((await server.call('DELETE', `${base()}/${doomed.iid}`)).status).toBe(204);
    expect(await titles(dev.token)).toEqual(['Secret', 'Elsewhere']);
  });
});
