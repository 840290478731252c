/**
 * The permission matrix: every members route × {anonymous, non-member, guest, reporter, developer, maintainer, owner,
 * administrator} → the status the platform answers (reference §2.1 and the per-endpoint checks). Each cell runs against
 * fresh targets, so no cell depends on another. `WRITE_MATRIX=1` regenerates docs/members-permission-matrix.md.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directMembership } from '@forgefold/core';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, createProject, type Person } from './support.js';

const ROLES = ['anonymous', 'non-member', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'administrator'] as const;
type Role = (typeof ROLES)[number];

let server: TestServer;
const people: Partial<Record<Role, Person>> = {};
let group: { id: number };
let project: { id: number };
let counter = 0;
const fresh = () => `t${++counter}`;

const rootReq = (method: string, path: string, body?: unknown) => server.request(method, path, body === undefined ? {} : { body });
const newUser = async () => (await rootReq('POST', '/api/v4/users', { username: fresh(), name: 'T', email: `${fresh()}@example.com`, password: 'password123' })).body.id as number;
const newMember = async (source: 'groups' | 'projects', level = 10) => {
  const id = await newUser();
  await rootReq('POST', `/api/v4/${source}/${source === 'groups' ? group.id : project.id}/members`, { user_id: id, access_level: level });
  return id;
};

interface Cell {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly cleanup?: () => Promise<void>;
}
interface RouteCase {
  readonly name: string;
  readonly prepare: () => Promise<Cell>;
  /** Expected status per role. */
  readonly expected: Readonly<Record<Role, number>>;
}

const row = (anonymous: number, nonMember: number, guest: number, reporter: number, developer: number, maintainer: number, owner: number, administrator: number): Record<Role, number> => ({
  anonymous,
  'non-member': nonMember,
  guest,
  reporter,
  developer,
  maintainer,
  owner,
  administrator,
});

const cases = (): RouteCase[] => {
  const g = () => `/api/v4/groups/${group.id}`;
  const p = () => `/api/v4/projects/${project.id}`;
  const list: RouteCase[] = [];
  for (const source of ['groups', 'projects'] as const) {
    const base = source === 'groups' ? g : p;
    const admin = source === 'groups' ? [403, 403, 403, 403] : [403, 403, 403, 0];
    const adminOk = (status: number) => admin.map((s) => (s === 0 ? status : s)) as [number, number, number, number];
    list.push(
      { name: `GET /${source}/:id/members`, prepare: async () => ({ method: 'GET', path: `${base()}/members` }), expected: row(401, 404, 200, 200, 200, 200, 200, 200) },
      { name: `GET /${source}/:id/members/all`, prepare: async () => ({ method: 'GET', path: `${base()}/members/all` }), expected: row(401, 404, 200, 200, 200, 200, 200, 200) },
      { name: `GET /${source}/:id/members/:user_id`, prepare: async () => ({ method: 'GET', path: `${base()}/members/${source === 'groups' ? people.owner!.id : await newMember('projects')}` }), expected: row(401, 404, 200, 200, 200, 200, 200, 200) },
      { name: `GET /${source}/:id/members/all/:user_id`, prepare: async () => ({ method: 'GET', path: `${base()}/members/all/${people.owner!.id}` }), expected: row(401, 404, 200, 200, 200, 200, 200, 200) },
      { name: `POST /${source}/:id/members`, prepare: async () => ({ method: 'POST', path: `${base()}/members`, body: { user_id: await newUser(), access_level: 30 } }), expected: row(401, 404, ...adminOk(201), 201, 201) },
      { name: `PUT /${source}/:id/members/:user_id`, prepare: async () => ({ method: 'PUT', path: `${base()}/members/${await newMember(source)}`, body: { access_level: 20 } }), expected: row(401, 404, ...adminOk(200), 200, 200) },
      { name: `DELETE /${source}/:id/members/:user_id`, prepare: async () => ({ method: 'DELETE', path: `${base()}/members/${await newMember(source)}` }), expected: row(401, 404, ...adminOk(204), 204, 204) },
      { name: `POST /${source}/:id/invitations`, prepare: async () => ({ method: 'POST', path: `${base()}/invitations`, body: { email: `${fresh()}@invite.test`, access_level: 10 } }), expected: row(401, 404, ...adminOk(201), 201, 201) },
      { name: `GET /${source}/:id/invitations`, prepare: async () => ({ method: 'GET', path: `${base()}/invitations` }), expected: row(401, 404, ...adminOk(200), 200, 200) },
      {
        name: `PUT /${source}/:id/invitations/:email`,
        prepare: async () => {
          const email = `${fresh()}@invite.test`;
          await rootReq('POST', `${base()}/invitations`, { email, access_level: 10 });
          return { method: 'PUT', path: `${base()}/invitations/${email}`, body: { access_level: 20 } };
        },
        expected: row(401, 404, ...adminOk(200), 200, 200),
      },
      {
        name: `DELETE /${source}/:id/invitations/:email`,
        prepare: async () => {
          const email = `${fresh()}@invite.test`;
          await rootReq('POST', `${base()}/invitations`, { email, access_level: 10 });
          return { method: 'DELETE', path: `${base()}/invitations/${email}` };
        },
        expected: row(401, 404, ...adminOk(204), 204, 204),
      },
      {
        name: `POST /${source}/:id/share`,
        prepare: async () => {
          const other = (await rootReq('POST', '/api/v4/groups', { name: fresh(), path: fresh(), visibility: 'internal' })).body.id;
          return { method: 'POST', path: `${base()}/share`, body: { group_id: other, group_access: 20 } };
        },
        expected: source === 'groups' ? row(401, 404, 404, 404, 404, 404, 201, 201) : row(401, 404, 403, 403, 403, 201, 201, 201),
      },
      {
        name: `DELETE /${source}/:id/share/:group_id`,
        prepare: async () => {
          const other = (await rootReq('POST', '/api/v4/groups', { name: fresh(), path: fresh(), visibility: 'internal' })).body.id;
          await rootReq('POST', `${base()}/share`, { group_id: other, group_access: 20 });
          return { method: 'DELETE', path: `${base()}/share/${other}` };
        },
        expected: row(401, 404, ...adminOk(204), 204, 204),
      },
    );
  }
  list.push(
    { name: 'GET /groups/:id/billable_members', prepare: async () => ({ method: 'GET', path: `${g()}/billable_members` }), expected: row(401, 404, 400, 400, 400, 400, 200, 200) },
    { name: 'GET /groups/:id/billable_members/:user_id/memberships', prepare: async () => ({ method: 'GET', path: `${g()}/billable_members/${people.guest!.id}/memberships` }), expected: row(401, 404, 400, 400, 400, 400, 200, 200) },
    { name: 'DELETE /groups/:id/billable_members/:user_id', prepare: async () => ({ method: 'DELETE', path: `${g()}/billable_members/${await newMember('groups')}` }), expected: row(401, 404, 400, 400, 400, 400, 204, 204) },
    { name: 'GET /groups/:id/pending_members', prepare: async () => ({ method: 'GET', path: `${g()}/pending_members` }), expected: row(401, 404, 400, 400, 400, 400, 200, 200) },
    {
      name: 'PUT /groups/:id/members/:member_id/approve',
      prepare: async () => {
        const memberId = await findMemberId(await newMember('groups'));
        return { method: 'PUT', path: `${g()}/members/${memberId}/approve` };
      },
      expected: row(401, 404, 400, 400, 400, 400, 204, 204),
    },
    { name: 'POST /groups/:id/members/approve_all', prepare: async () => ({ method: 'POST', path: `${g()}/members/approve_all` }), expected: row(401, 404, 400, 400, 400, 400, 204, 204) },
    { name: 'POST /groups/:id/members/:user_id/override (no LDAP link)', prepare: async () => ({ method: 'POST', path: `${g()}/members/${people.guest!.id}/override` }), expected: row(401, 404, 403, 403, 403, 403, 403, 403) },
    { name: 'DELETE /groups/:id/members/:user_id/override (no LDAP link)', prepare: async () => ({ method: 'DELETE', path: `${g()}/members/${people.guest!.id}/override` }), expected: row(401, 404, 403, 403, 403, 403, 403, 403) },
    {
      // With a link: a group without any answers 404 "No linked LDAP groups found" (see the LDAP tests). The LDAP link
      // routes look the group up without a visibility check (`find_group`), so a stranger gets 403 there, not 404.
      name: 'GET /groups/:id/ldap_group_links',
      prepare: async () => {
        const cn = fresh();
        await rootReq('POST', `${g()}/ldap_group_links`, { cn, group_access: 10, provider: 'ldapmain' });
        return { method: 'GET', path: `${g()}/ldap_group_links`, cleanup: async () => void (await rootReq('DELETE', `${g()}/ldap_group_links/ldapmain/${cn}`)) };
      },
      expected: row(401, 403, 403, 403, 403, 403, 200, 200),
    },
    {
      name: 'POST /groups/:id/ldap_group_links',
      prepare: async () => {
        const cn = fresh();
        return { method: 'POST', path: `${g()}/ldap_group_links`, body: { cn, group_access: 10, provider: 'ldapmain' }, cleanup: async () => void (await rootReq('DELETE', `${g()}/ldap_group_links/ldapmain/${cn}`)) };
      },
      expected: row(401, 403, 403, 403, 403, 403, 201, 201),
    },
    {
      name: 'DELETE /groups/:id/ldap_group_links/:provider/:cn',
      prepare: async () => {
        const cn = fresh();
        await rootReq('POST', `${g()}/ldap_group_links`, { cn, group_access: 10, provider: 'ldapmain' });
        return { method: 'DELETE', path: `${g()}/ldap_group_links/ldapmain/${cn}`, cleanup: async () => void (await rootReq('DELETE', `${g()}/ldap_group_links/ldapmain/${cn}`)) };
      },
      expected: row(401, 403, 403, 403, 403, 403, 204, 204),
    },
    { name: 'POST /groups/:id/ldap_sync', prepare: async () => ({ method: 'POST', path: `${g()}/ldap_sync`, body: { entries: [] } }), expected: row(401, 404, 403, 403, 403, 403, 200, 200) },
    { name: 'GET /audit/membership_events', prepare: async () => ({ method: 'GET', path: `/api/v4/audit/membership_events?group_id=${group.id}` }), expected: row(401, 403, 403, 403, 403, 403, 403, 200) },
    { name: 'GET /audit/groups/:id/members', prepare: async () => ({ method: 'GET', path: `/api/v4/audit/groups/${group.id}/members?at=2030-01-01T00:00:00Z` }), expected: row(401, 403, 403, 403, 403, 403, 403, 200) },
  );
  return list;
};

const findMemberId = async (userId: number): Promise<number> => {
  return directMembership(server.app.state.members, 'Namespace', group.id, userId)?.id ?? 0;
};

beforeAll(async () => {
  server = await startServer({ start: '2026-03-01T10:00:00.000Z' });
  for (const role of ['non-member', 'guest', 'reporter', 'developer', 'maintainer', 'owner'] as const) people[role] = await createPerson(server, role.replace('-', ''));
  group = await createGroup(server, people.owner!, 'Matrix');
  project = await createProject(server, people.owner!, 'Repo', group.id);
  const levels = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
  for (const [role, level] of Object.entries(levels)) await rootReq('POST', `/api/v4/groups/${group.id}/members`, { user_id: people[role as Role]!.id, access_level: level });
});
afterAll(async () => {
  await server.close();
});

describe('permission matrix', () => {
  it('every members route × role answers the platform status', async () => {
    const actual: { name: string; statuses: Record<Role, number> }[] = [];
    for (const routeCase of cases()) {
      const statuses = {} as Record<Role, number>;
      for (const role of ROLES) {
        const cell = await routeCase.prepare();
        const token = role === 'anonymous' ? null : role === 'administrator' ? server.rootToken : people[role]!.token;
        const response = await server.request(cell.method, cell.path, { token, ...(cell.body !== undefined ? { body: cell.body } : {}) });
        statuses[role] = response.status;
        await cell.cleanup?.();
      }
      actual.push({ name: routeCase.name, statuses });
    }
    const table = [
      `| route | ${ROLES.join(' | ')} |`,
      `|---|${ROLES.map(() => '---').join('|')}|`,
      ...actual.map(({ name, statuses }) => `| \`${name}\` | ${ROLES.map((r) => statuses[r]).join(' | ')} |`),
    ].join('\n');
    if (process.env['WRITE_MATRIX']) {
      await mkdir(new URL('../../docs/', import.meta.url), { recursive: true });
      await writeFile(
        new URL('../../docs/members-permission-matrix.md', import.meta.url),
        `# Members permission matrix\n\nGenerated by \`WRITE_MATRIX=1 npx vitest run test/members/matrix.test.ts\` against a real server: the status each role gets on a private top-level group (and a project in it). Roles are direct group memberships; "administrator" is an instance administrator; "non-member" a signed-in stranger.\n\n${table}\n`,
      );
    }
    const expected = cases();
    expect(actual.map((a) => [a.name, a.statuses])).toEqual(expected.map((e) => [e.name, e.expected]));
  });
});
