/**
 * What existed in a state, by name: what `forgefold replay` prints for an auditor (users, groups by full
 * path, projects by path, and a summary of the memberships of each group and project). Effective members
 * (inherited, shared) are `forgefold audit --at`'s job.
 */
import {
  findGroup,
  findProject,
  isExpired,
  membersOfSource,
  tableGet,
  tableValues,
  type Member,
  type State,
} from '@forgefold/core';

export interface InventoryUser {
  readonly id: number;
  readonly username: string;
  readonly name: string;
  readonly state: string;
  readonly admin: boolean;
  readonly bot: string | null;
}

export interface InventoryGroup {
  readonly id: number;
  readonly full_path: string;
  readonly name: string;
  readonly visibility: string;
}

export interface InventoryProject {
  readonly id: number;
  readonly path_with_namespace: string;
  readonly name: string;
  readonly visibility: string;
}

/** The direct memberships of one group or project. */
export interface InventoryMemberships {
  readonly source_type: 'group' | 'project';
  readonly source_id: number;
  readonly path: string;
  /** Direct members granting access (active, not expired). */
  readonly members: number;
  /** Access level → number of direct members at that level. */
  readonly by_level: Readonly<Record<string, number>>;
  /** Members added while the user cap was reached, not yet approved (no access). */
  readonly awaiting: number;
  /** Members past their expiry date the log had not yet recorded as expired. */
  readonly expired: number;
  /** Pending e-mail invitations. */
  readonly invitations: number;
  /** Groups this group or project is shared with. */
  readonly shared_with: readonly { readonly group: string; readonly group_access: number; readonly expires_at: string | null }[];
  /** LDAP group links (groups only). */
  readonly ldap_links: number;
}

export interface Inventory {
  readonly users: readonly InventoryUser[];
  readonly groups: readonly InventoryGroup[];
  readonly projects: readonly InventoryProject[];
  readonly memberships: readonly InventoryMemberships[];
}

export const ACCESS_LEVEL_NAMES: Readonly<Record<number, string>> = { 5: 'minimal', 10: 'guest', 20: 'reporter', 30: 'developer', 40: 'maintainer', 50: 'owner' };

const byText = <T>(key: (value: T) => string) => (a: T, b: T): number => {
  const x = key(a);
  const y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The path of a group or project by id in `state`, or undefined when it does not exist there. */
export const sourcePath = (state: State, type: 'Namespace' | 'Project', id: number): string | undefined =>
  type === 'Namespace' ? findGroup(state.groups, id)?.full_path : findProject(state.projects, id)?.path_with_namespace;

/**
 * The inventory of a state. `today` ("YYYY-MM-DD") is the day the state stands for: memberships expiring on
 * or before it count as expired, as the API would treat them then.
 */
export const inventoryOf = (state: State, today?: string): Inventory => {
  const users = [...tableValues(state.users.byId)].map(
    (user): InventoryUser => ({ id: user.id, username: user.username, name: user.name, state: user.state, admin: user.is_admin, bot: user.bot }),
  );
  users.sort((a, b) => a.id - b.id);
  const groups = [...tableValues(state.groups.byId)].map((group): InventoryGroup => ({ id: group.id, full_path: group.full_path, name: group.name, visibility: group.visibility }));
  groups.sort(byText((group) => group.full_path));
  const projects = [...tableValues(state.projects.byId)].map(
    (project): InventoryProject => ({ id: project.id, path_with_namespace: project.path_with_namespace, name: project.name, visibility: project.visibility }),
  );
  projects.sort(byText((project) => project.path_with_namespace));

  const memberships: InventoryMemberships[] = [];
  const describeSource = (type: 'Namespace' | 'Project', id: number, rows: Iterable<Member>): void => {
    const path = sourcePath(state, type, id);
    if (path === undefined) return;
    const byLevel: Record<string, number> = {};
    let members = 0;
    let awaiting = 0;
    let expired = 0;
    let invitations = 0;
    for (const member of rows) {
      if (member.user_id === null) invitations++;
      else if (isExpired(member.expires_at, today)) expired++;
      else if (member.state === 'awaiting') awaiting++;
      else {
        members++;
        byLevel[member.access_level] = (byLevel[member.access_level] ?? 0) + 1;
      }
    }
    const key = `${type}:${id}`;
    const shares = tableGet(state.members.linksBySource, key);
    const sharedWith = shares
      ? [...tableValues(shares)].flatMap((linkId) => {
          const link = tableGet(state.members.links, linkId);
          if (!link || isExpired(link.expires_at, today)) return [];
          return [{ group: findGroup(state.groups, link.group_id)?.full_path ?? `#${link.group_id}`, group_access: link.group_access, expires_at: link.expires_at }];
        })
      : [];
    const ldap = type === 'Namespace' ? tableGet(state.members.ldapLinks, id) : undefined;
    const ldapLinks = ldap ? [...tableValues(ldap)].length : 0;
    if (members + awaiting + expired + invitations + sharedWith.length + ldapLinks === 0) return;
    memberships.push({
      source_type: type === 'Namespace' ? 'group' : 'project',
      source_id: id,
      path,
      members,
      by_level: byLevel,
      awaiting,
      expired,
      invitations,
      shared_with: sharedWith,
      ldap_links: ldapLinks,
    });
  };
  for (const group of groups) describeSource('Namespace', group.id, membersOfSource(state.members, 'Namespace', group.id));
  for (const project of projects) describeSource('Project', project.id, membersOfSource(state.members, 'Project', project.id));
  return { users, groups, projects, memberships };
};

/** One line per inventory entry, for the terminal. */
export const formatInventory = (inventory: Inventory): string[] => {
  const lines: string[] = [];
  const pad = (values: readonly string[]) => Math.max(0, ...values.map((v) => v.length));
  lines.push(`users (${inventory.users.length})`);
  const userWidth = pad(inventory.users.map((u) => u.username));
  for (const user of inventory.users) {
    const notes = [user.admin ? 'admin' : '', user.bot ?? '', user.state !== 'active' ? user.state : ''].filter(Boolean).join(', ');
    lines.push(`  ${user.username.padEnd(userWidth)}  ${user.name}${notes ? `  (${notes})` : ''}`);
  }
  lines.push(`groups (${inventory.groups.length})`);
  const groupWidth = pad(inventory.groups.map((g) => g.full_path));
  for (const group of inventory.groups) lines.push(`  ${group.full_path.padEnd(groupWidth)}  ${group.name}  (${group.visibility})`);
  lines.push(`projects (${inventory.projects.length})`);
  const projectWidth = pad(inventory.projects.map((p) => p.path_with_namespace));
  for (const project of inventory.projects) lines.push(`  ${project.path_with_namespace.padEnd(projectWidth)}  ${project.name}  (${project.visibility})`);
  lines.push(`direct memberships (${inventory.memberships.length} groups and projects)`);
  const sourceWidth = pad(inventory.memberships.map((m) => `${m.source_type} ${m.path}`));
  for (const source of inventory.memberships) {
    const levels = Object.entries(source.by_level)
      .sort(([a], [b]) => Number(b) - Number(a))
      .map(([level, count]) => `${ACCESS_LEVEL_NAMES[Number(level)] ?? `level ${level}`} ${count}`)
      .join(', ');
    const parts = [`${source.members} member${source.members === 1 ? '' : 's'}${levels ? ` (${levels})` : ''}`];
    if (source.awaiting) parts.push(`${source.awaiting} awaiting`);
    if (source.expired) parts.push(`${source.expired} expired`);
    if (source.invitations) parts.push(`${source.invitations} invitation${source.invitations === 1 ? '' : 's'}`);
    for (const share of source.shared_with) parts.push(`shared with group ${share.group} as ${ACCESS_LEVEL_NAMES[share.group_access] ?? share.group_access}`);
    if (source.ldap_links) parts.push(`${source.ldap_links} LDAP link${source.ldap_links === 1 ? '' : 's'}`);
    lines.push(`  ${`${source.source_type} ${source.path}`.padEnd(sourceWidth)}  ${parts.join('; ')}`);
  }
  return lines;
};
