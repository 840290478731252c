/** `GET /groups/:id/ldap_group_links` (ee/lib/api/ldap_group_links.rb): creation order; none is a 404 with its own text. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createGroup, createPerson, type Person } from '../members/support.js';

let server: TestServer;
let alice: Person;

beforeAll(async () => {
  server = await startServer({ start: '2026-05-01T00:00:00.000Z' });
  alice = await createPerson(server, 'alice');
});
afterAll(async () => {
  await server.close();
});

describe('LDAP group links list', () => {
  it('lists links in the order they were created, and answers 404 when there are none', async () => {
    const group = await createGroup(server, alice, 'Synced');
    const links = `/api/v4/groups/${group.id}/ldap_group_links`;
    const none = await server.request('GET', links, { token: alice.token });
    expect({ status: none.status, text: none.text }).toEqual({ status: 404, text: '{"message":"No linked LDAP groups found"}' });
    const created = [
      { cn: 'zeta', group_access: 30, provider: 'ldapmain' },
      { cn: 'alpha', group_access: 10, provider: 'ldapmain' },
      { filter: '(ou=people)', group_access: 20, provider: 'ldapmain' },
      { cn: 'mid', group_access: 40, provider: 'ldapsecondary' },
      { cn: 'beta', group_access: 10, provider: 'ldapmain' },
    ];
    for (const link of created) expect((await server.request('POST', links, { token: alice.token, body: link })).status).toBe(201);
    const listed = await server.request('GET', links, { token: alice.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual(created.map((link) => ({ cn: link.cn ?? null, group_access: link.group_access, provider: link.provider, filter: link.filter ?? null })));
    expect((await server.request('DELETE', `${links}/ldapmain/alpha`, { token: alice.token })).status).toBe(204);
    expect((await server.request('GET', links, { token: alice.token })).body.map((l: { cn: string | null }) => l.cn)).toEqual(['zeta', null, 'mid', 'beta']);
    for (const path of ['ldapmain/zeta', 'ldapsecondary/mid', 'ldapmain/beta']) await server.request('DELETE', `${links}/${path}`, { token: alice.token });
    await server.request('DELETE', links, { token: alice.token, body: { filter: '(ou=people)', provider: 'ldapmain' } });
    expect((await server.request('GET', links, { token: alice.token })).status).toBe(404);
  });
});
