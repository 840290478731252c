/**
 * `GET /groups/:id/issues`, `GET /groups/:id/issues_statistics` and `GET /groups/:id/merge_requests` over a group
 * whose subtree mixes public, internal and private projects (issue 16, "Scale of reads"): for an anonymous caller, a
 * signed-in outsider, an external user, an outsider with a project membership and a project share (into the group
 * and into a subgroup), a member of a subgroup only, the group's owner and an administrator, each list is exactly
 * what the per-project lists of the subtree's projects give that caller (the old walk over every project of the
 * subtree, filtered by what the caller may read), in the lists' order. The projects each caller reaches are named,
 * so that leaving out a source of readable projects (memberships, shares, internal projects) fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member, newDataDir, removeDir, ROOT_TOKEN, start, type Running } from './support.js';

let server: Running;
let dataDir: string;

beforeAll(async () => {
  dataDir = newDataDir();
  server = await start(dataDir);
});
afterAll(async () => {
  await server.close();
  removeDir(dataDir);
});

const must = <A>(what: string, answer: { status: number; body: A }, status = 201): A => {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

interface Row {
  readonly id: number;
  readonly state: string;
  readonly references?: unknown;
}

describe('the group lists of issues and merge requests', () => {
  it('answer, for every kind of caller, what the subtree’s projects they can read hold', async () => {
    // Lab (public) ⊃ Wing (public) ⊃ Nook (internal); Club (private) is shared into.
    const group = async (name: string, visibility: string, parentId?: number) =>
      must(`group ${name}`, await server.call('POST', '/groups', { name, path: name.toLowerCase(), visibility, ...(parentId ? { parent_id: parentId } : {}) })) as { id: number };
    const lab = await group('Lab', 'public');
    const wing = await group('Wing', 'public', lab.id);
    const nook = await group('Nook', 'internal', wing.id);
    const club = await group('Club', 'private');
    const away = await group('Away', 'public');

    const names = new Map<number, string>();
    const project = async (name: string, namespaceId: number, visibility: string) => {
      const created = must(`project ${name}`, await server.call('POST', '/projects', { name, namespace_id: namespaceId, visibility, initialize_with_readme: true })) as { id: number };
      names.set(created.id, name);
      // Two issues (one closed; a confidential one in some), and a merge request from a branch of its own.
      must(`issue in ${name}`, await server.call('POST', `/projects/${created.id}/issues`, { title: `${name} one` }));
      const second = must(`issue in ${name}`, await server.call('POST', `/projects/${created.id}/issues`, { title: `${name} two` })) as { iid: number };
      must(`close in ${name}`, await server.call('PUT', `/projects/${created.id}/issues/${second.iid}`, { state_event: 'close' }), 200);
      if (name === 'Open' || name === 'Joined') must(`secret in ${name}`, await server.call('POST', `/projects/${created.id}/issues`, { title: `${name} secret`, confidential: true }));
      const branch = `topic-${name.toLowerCase()}`;
      must(`branch in ${name}`, await server.call('POST', `/projects/${created.id}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }] }));
      must(`merge request in ${name}`, await server.call('POST', `/projects/${created.id}/merge_requests`, { title: `${name} change`, source_branch: branch, target_branch: 'main' }));
      return created.id;
    };
    // Created out of the tree's order, so that an id order and a walk from the top differ.
    const nookInside = await project('NookInside', nook.id, 'internal');
    const open = await project('Open', lab.id, 'public');
    const wingShared = await project('WingShared', wing.id, 'private');
    const inside = await project('Inside', lab.id, 'internal');
    const joined = await project('Joined', lab.id, 'private');
    const nookClosed = await project('NookClosed', nook.id, 'private');
    const viaShare = await project('ViaShare', lab.id, 'private');
    const closed = await project('Closed', lab.id, 'private');
    const wingOpen = await project('WingOpen', wing.id, 'public');
    const wingClosed = await project('WingClosed', wing.id, 'private');
    const elsewhere = await project('Elsewhere', away.id, 'public');
    const tree = [open, inside, joined, viaShare, closed, wingOpen, wingShared, wingClosed, nookInside, nookClosed];

    const owner = await member(server, 'gl-owner');
    const bob = await member(server, 'gl-bob', { id: joined, level: 20 });
    const carol = await member(server, 'gl-carol');
    const dave = await member(server, 'gl-dave');
    const erin = await member(server, 'gl-erin');
    must('external', await server.call('PUT', `/users/${erin.id}`, { external: true }), 200);
    must('owner', await server.call('POST', `/groups/${lab.id}/members`, { user_id: owner.id, access_level: 50 }));
    must('wing member', await server.call('POST', `/groups/${wing.id}/members`, { user_id: dave.id, access_level: 20 }));
    must('club member', await server.call('POST', `/groups/${club.id}/members`, { user_id: bob.id, access_level: 20 }));
    for (const id of [viaShare, wingShared]) must('share', await server.call('POST', `/projects/${id}/share`, { group_id: club.id, group_access: 30 }));

    const callers: { name: string; token: string | null; reads: number[] }[] = [
      { name: 'anonymous', token: null, reads: [open, wingOpen] },
      { name: 'a signed-in outsider', token: carol.token, reads: [open, inside, wingOpen, nookInside] },
      { name: 'an external user', token: erin.token, reads: [open, wingOpen] },
      { name: 'an outsider with a membership and shares', token: bob.token, reads: [open, inside, joined, viaShare, wingOpen, wingShared, nookInside] },
      { name: 'a member of a subgroup', token: dave.token, reads: [open, inside, wingOpen, wingShared, wingClosed, nookInside, nookClosed] },
      { name: 'the owner', token: owner.token, reads: tree },
      { name: 'an administrator', token: ROOT_TOKEN, reads: tree },
    ];
    const list = async (path: string, token: string | null) => {
      const answer = await server.call('GET', path, undefined, token);
      return { status: answer.status, body: answer.body as Row[] };
    };
    const newestFirst = (rows: Row[]) => [...rows].sort((a, b) => b.id - a.id);
    const withoutReferences = (rows: Row[]) => rows.map(({ references: _references, ...rest }) => rest);

    for (const caller of callers) {
      // What the caller reads project by project: the old walk over the subtree, filtered.
      const issues: Row[] = [];
      const mergeRequests: Row[] = [];
      const readable: number[] = [];
      for (const id of tree) {
        const own = await list(`/projects/${id}/issues?per_page=100`, caller.token);
        if (own.status !== 200) continue;
        readable.push(id);
        issues.push(...own.body);
        const mrs = await list(`/projects/${id}/merge_requests?per_page=100`, caller.token);
        if (mrs.status === 200) mergeRequests.push(...mrs.body);
      }
      const named = (ids: number[]) => ids.map((id) => names.get(id)).sort();
      expect({ caller: caller.name, reads: named(readable) }).toEqual({ caller: caller.name, reads: named(caller.reads) });

      const groupIssues = await list(`/groups/${lab.id}/issues?per_page=100&state=all`, caller.token);
      expect(groupIssues.status).toBe(200);
      expect({ caller: caller.name, issues: groupIssues.body }).toEqual({ caller: caller.name, issues: newestFirst(issues) });
      expect(groupIssues.body.length).toBeGreaterThan(0);
      // Another order, and a page of it.
      const byUpdate = await list(`/groups/${lab.id}/issues?per_page=100&state=all&order_by=updated_at&sort=asc`, caller.token);
      expect(byUpdate.body.map((row) => row.id)).toEqual(newestFirst(issues).map((row) => row.id).reverse());
      const paged = await list(`/groups/${lab.id}/issues?per_page=2&page=2&state=all`, caller.token);
      expect(paged.body).toEqual(newestFirst(issues).slice(2, 4));

      const statistics = await server.call('GET', `/groups/${lab.id}/issues_statistics`, undefined, caller.token);
      expect(statistics.status).toBe(200);
      const opened = issues.filter((row) => row.state === 'opened').length;
      expect({ caller: caller.name, ...statistics.body }).toEqual({ caller: caller.name, statistics: { counts: { all: issues.length, closed: issues.length - opened, opened } } });

      const groupMergeRequests = await list(`/groups/${lab.id}/merge_requests?per_page=100&state=all`, caller.token);
      expect(groupMergeRequests.status).toBe(200);
      // The references are relative to the group here, to the project in the per-project list.
      expect({ caller: caller.name, mergeRequests: withoutReferences(groupMergeRequests.body) }).toEqual({ caller: caller.name, mergeRequests: withoutReferences(newestFirst(mergeRequests)) });
      expect(groupMergeRequests.body.length).toBeGreaterThan(0);
    }
    // A project outside the tree is in none of them.
    const everything = await list(`/groups/${lab.id}/issues?per_page=100&state=all`, ROOT_TOKEN);
    expect(everything.body.some((row) => (row as unknown as { project_id: number }).project_id === elsewhere)).toBe(false);
  });
});
