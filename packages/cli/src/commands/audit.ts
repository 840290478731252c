/**
 * `forgefold audit`: who had which access to what, when, and who granted it — read from the event log.
 *   forgefold audit --user alice                       membership history of a user
 *   forgefold audit --group acme/dev [--descendants]   membership history of a group (and its subgroups/projects)
 *   forgefold audit --group acme --at 2026-03-01T00:00:00Z   the group's members as of that time
 */
import { findGroupByIdOrPath, findProjectByIdOrPath, findUserByIdOrUsername, membersAsOf, membershipHistory, stateAsOf, type AuditEntry, type MemberAsOf } from '@forgefold/core';
import { commonOptions, EXIT_OK, parseFlags, parseIsoTime, UsageError, type CommandSpec } from '../args.js';
import { printLine, type CliContext, type Command } from '../context.js';
import { resolveDataDir } from '../paths.js';
import { databaseUrlFrom, openDataStore, withStore } from '../store.js';

const spec = {
  name: 'audit',
  usage: 'audit (--user ID|USERNAME | --group ID|PATH | --project ID|PATH) [--at ISO-TIME] [--since ISO-TIME] [--until ISO-TIME] [--descendants] [--json] [--data DIR]',
  summary: 'Membership history of a user, group or project, or the members of a group or project at a past time.',
  description: `
Reads the event log (read-only). Without --at, prints every membership event (added, level changed, expiry set,
expired, approved, override set, invitation accepted, removed; shares and LDAP links) concerning the user, group
or project, oldest first, with the acting user, the administrator behind sudo or impersonation, and the origin.
With --at (and --group or --project), prints the effective members at that moment: level, membership state,
expiry, where the membership comes from (direct, inherited, shared) and who granted it.
Users, groups and projects are named by id, or by username / full path as they are now (or were at --at).`,
  options: {
    user: { type: 'string', value: 'ID|USERNAME', description: 'History of this user' },
    group: { type: 'string', value: 'ID|PATH', description: 'History (or members, with --at) of this group' },
    project: { type: 'string', value: 'ID|PATH', description: 'History (or members, with --at) of this project' },
    at: { type: 'string', value: 'ISO-TIME', description: 'Members as of this time instead of the history' },
    since: { type: 'string', value: 'ISO-TIME', description: 'History from this time' },
    until: { type: 'string', value: 'ISO-TIME', description: 'History up to this time' },
    descendants: { type: 'boolean', description: 'With --group: include its subgroups and projects' },
    json: { type: 'boolean', description: 'Print JSON' },
    ...commonOptions,
  },
} as const satisfies CommandSpec;

const iso = (flag: string, value: string | undefined): string | undefined => (value === undefined ? undefined : new Date(parseIsoTime(flag, value, spec.name)).toISOString());

const describeEntry = (entry: AuditEntry, name: (id: number | null) => string): string => {
  const source = entry.source_type === null ? '' : `${entry.source_type === 'Project' ? 'project' : 'group'} ${entry.source_id}`;
  const subject = entry.user_id !== null ? name(entry.user_id) : entry.invite_email ? `<${entry.invite_email}>` : entry.group_id !== undefined ? `group ${entry.group_id}` : '';
  const level = entry.from !== undefined ? ` ${entry.from}→${entry.access_level}` : entry.access_level !== undefined ? ` level ${entry.access_level}` : '';
  const extra = [entry.expires_at !== undefined ? `expires ${entry.expires_at ?? 'never'}` : '', entry.override !== undefined ? `override ${entry.override}` : '', entry.reason ? `(${entry.reason})` : ''].filter(Boolean).join(' ');
  const actor = entry.actor_id === null ? 'system' : name(entry.actor_id);
  const sudo = entry.sudo_from_id !== null ? ` via ${name(entry.sudo_from_id)}` : '';
  return `${entry.at}  #${entry.position}  ${entry.event.padEnd(26)} ${source.padEnd(12)} ${subject}${level}${extra ? ` ${extra}` : ''}  by ${actor}${sudo} [${entry.origin}]`;
};

const describeMember = (member: MemberAsOf, name: (id: number | null) => string): string =>
  `${(member.username ?? String(member.user_id)).padEnd(20)} ${String(member.access_level).padStart(2)}  ${member.state.padEnd(8)} ${member.membership.padEnd(9)} from ${member.source_type === 'Project' ? 'project' : 'group'} ${member.source_id}  since ${member.created_at}  by ${name(member.created_by_id)}${member.expires_at ? `  expires ${member.expires_at}` : ''}`;

export const audit: Command = {
  spec,
  async run(argv, context: CliContext) {
    const flags = parseFlags(spec, argv);
    const chosen = [flags.user, flags.group, flags.project].filter((v) => v !== undefined).length;
    if (chosen === 0) throw new UsageError('one of --user, --group or --project is required', spec.name);
    if (flags.at !== undefined && flags.group === undefined && flags.project === undefined) throw new UsageError('--at needs --group or --project', spec.name);
    const at = iso('at', flags.at);
    const since = iso('since', flags.since);
    const until = iso('until', flags.until);
    const store = await openDataStore(context.openStore, resolveDataDir(flags.data, context.env), context.cwd, 'existing', { readonly: true }, databaseUrlFrom(flags['database-url'], context.env, spec.name));
    await withStore(store, async ({ events }) => {
      // Names are resolved against the state at --at, or as they are now.
      const { state } = await stateAsOf(events, at ?? '9999-12-31T23:59:59.999Z');
      const name = (id: number | null): string => (id === null ? 'system' : (findUserByIdOrUsername(state.users, String(id))?.username ?? `user ${id}`));
      const resolveId = (flag: string, value: string, find: (v: string) => { id: number } | undefined): number => {
        const found = find(value);
        if (found) return found.id;
        if (/^\d+$/.test(value)) return Number(value);
        throw new UsageError(`no ${flag} '${value}'`, spec.name);
      };
      const userId = flags.user === undefined ? undefined : resolveId('user', flags.user, (v) => findUserByIdOrUsername(state.users, v));
      const groupId = flags.group === undefined ? undefined : resolveId('group', flags.group, (v) => findGroupByIdOrPath(state.groups, v));
      const projectId = flags.project === undefined ? undefined : resolveId('project', flags.project, (v) => findProjectByIdOrPath(state.projects, v));
      if (at !== undefined) {
        const members = await membersAsOf(events, groupId !== undefined ? { type: 'Namespace', id: groupId } : { type: 'Project', id: projectId! }, at);
        if (members === null) throw new UsageError(`no such ${groupId !== undefined ? 'group' : 'project'} at ${at}`, spec.name);
        if (flags.json) await printLine(context.stdout, JSON.stringify(members, null, 2));
        else {
          await printLine(context.stdout, `members as of ${at}: ${members.length}`);
          for (const member of members) await printLine(context.stdout, `  ${describeMember(member, name)}`);
        }
        return;
      }
      const entries = await membershipHistory(events, {
        ...(userId !== undefined ? { userId } : {}),
        ...(groupId !== undefined ? { groupId } : {}),
        ...(projectId !== undefined ? { projectId } : {}),
        ...(flags.descendants ? { includeDescendants: { state } } : {}),
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
      });
      if (flags.json) await printLine(context.stdout, JSON.stringify(entries, null, 2));
      else for (const entry of entries) await printLine(context.stdout, describeEntry(entry, name));
    });
    return EXIT_OK;
  },
};
