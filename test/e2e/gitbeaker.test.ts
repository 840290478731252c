/** A real GitLab client, unmodified, against a real Forgefold server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let api: InstanceType<typeof Gitlab>;

beforeAll(async () => {
  server = await startServer();
  api = new Gitlab({ host: server.baseUrl, token: server.rootToken });
});
afterAll(async () => {
  await server.close();
});

describe('@gitbeaker/rest', () => {
  it('creates users, tokens, groups and projects, and pages through them with all()', async () => {
    const me = await api.Users.showCurrentUser();
    expect(me.username).toBe('root');
    const user = await api.Users.create({ email: 'kim@example.com', name: 'Kim', username: 'kim', password: 'password123', skipConfirmation: true });
    expect(user.username).toBe('kim');
    const token = await api.PersonalAccessTokens.create(user.id as number, 'client', ['api']);
    expect(token.token).toBeTruthy();
    const asKim = new Gitlab({ host: server.baseUrl, token: token.token as string });
    expect((await asKim.Users.showCurrentUser()).username).toBe('kim');

    const group = await asKim.Groups.create('Client Group', 'client-group');
    expect(group.full_path).toBe('client-group');
    const sub = await asKim.Groups.create('Sub', 'sub', { parentId: group.id as number });
    expect(sub.full_path).toBe('client-group/sub');
    expect((await asKim.Groups.show('client-group/sub')).id).toBe(sub.id);
    const subgroups = await asKim.Groups.allSubgroups(group.id as number);
    expect(subgroups.map((g) => g.id)).toEqual([sub.id]);

    for (let i = 0; i < 45; i++) await asKim.Projects.create({ name: `project-${i}`, namespaceId: sub.id as number });
    const all = await asKim.Projects.all({ perPage: 20, membership: true });
    expect(all).toHaveLength(45);
    const keyset = await asKim.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 20, membership: true });
    expect(keyset.map((p) => p.id)).toEqual(all.map((p) => p.id).sort((a, b) => (a as number) - (b as number)));
    const offsetPage = await asKim.Projects.all({ pagination: 'offset', perPage: 10, page: 2, showExpanded: true, maxPages: 1, membership: true });
    expect(offsetPage.paginationInfo).toMatchObject({ total: 45, totalPages: 5, current: 2, next: 3, previous: 1, perPage: 10 });

    const users = await api.Users.all({ perPage: 1 });
    expect(users.map((u) => u.username).sort()).toEqual(['kim', 'root']);
    const imp = await api.UserImpersonationTokens.create(user.id as number, 'imp', ['api']);
    expect(imp.impersonation).toBe(true);
    await api.UserImpersonationTokens.revoke(user.id as number, imp.id as number);

    await asKim.Groups.remove(sub.id as number);
    await expect(asKim.Groups.show(sub.id as number)).rejects.toThrow(/404/);
  });

  it('stars a project, lists its starrers and the starred projects, and takes the star back', async () => {
    const lee = await api.Users.create({ email: 'lee@example.com', name: 'Lee', username: 'lee', password: 'password123', skipConfirmation: true });
    const token = await api.PersonalAccessTokens.create(lee.id as number, 'client', ['api']);
    const asLee = new Gitlab({ host: server.baseUrl, token: token.token as string });
    const project = await api.Projects.create({ name: 'Starred By Lee', visibility: 'public' });

    const starred = await asLee.Projects.star(project.id as number);
    expect(starred.star_count).toBe(1);
    const starrers = await asLee.Projects.allStarrers(project.id as number);
    expect(starrers.map((row) => row.user.username)).toEqual(['lee']);
    expect(typeof starrers[0]!.starred_since).toBe('string');
    expect((await asLee.Users.allStarredProjects(lee.id as number)).map((p) => p.id)).toEqual([project.id]);
    expect((await asLee.Users.allStarredProjects('lee', { pagination: 'offset' })).map((p) => p.id)).toEqual([project.id]);
    expect((await asLee.Projects.all({ starred: true })).map((p) => p.id)).toEqual([project.id]);

    const unstarred = await asLee.Projects.unstar(project.id as number);
    expect(unstarred.star_count).toBe(0);
    expect(await asLee.Projects.all({ starred: true })).toEqual([]);
  });
});
