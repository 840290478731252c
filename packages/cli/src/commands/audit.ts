/**
 * `forgefold audit`: who had which access to what, when, and who granted it — read from the event log.
 *   forgefold audit --user alice                       membership history of a user
 *   forgefold audit --group acme/dev [--descendants]   membership history of a group (and its subgroups/projects)
 *   forgefold audit --group acme --at 2026-03-01T00:00:00Z   the group's members as of that time
 *   forgefold audit --project acme/app --deployments [--environment production] [--at TIME]
 *                                                      deployment history, or what was deployed to an environment then
 */
import { deployedAsOf, deploymentHistory, membersAsOf, membershipHistory, tableValues, type AuditEntry, type DeploymentAuditEntry, type MemberAsOf, type State } from '@forgefold/core';
import { CliError, commonOptions, EXIT_OK, parseFlags, parseIsoTime, UsageError, type CommandSpec } from '../args.js';
import { printLine, type CliContext, type Command } from '../context.js';
import { findIn, foldWithNames, type Kind } from '../names.js';
import { resolveDataDir } from '../paths.js';
import { databaseUrlFrom, openDataStore, withStore } from '../store.js';

const spec = {
  name: 'audit',
  usage:
    'audit (--user ID|USERNAME | --group ID|PATH | --project ID|PATH) [--at ISO-TIME] [--since ISO-TIME] [--until ISO-TIME] [--descendants] [--deployments [--environment NAME]] [--json] [--data DIR]',
  summary: 'Membership history of a user, group or project, or the members of a group or project at a past time.',
  description: `
Reads the event log (read-only). Without --at, prints every membership event (added, level changed, expiry set,
expired, approved, override set, invitation accepted, removed; shares and LDAP links) concerning the user, group
or project, oldest first, with the acting user, the administrator behind sudo or impersonation, and the origin.
With --at (and --group or --project), prints the effective members at that moment: level, membership state,
expiry, where the membership comes from (direct, inherited, shared) and who granted it.
Users, groups and projects are named by id, or by username / full path as they were at --at, are now, or were
last before their deletion; the output names them the same way (full paths, not ids). A group or project that
did not exist at --at (created later, or deleted before) has no members then: an empty list, exit 0.
With --project and --deployments, prints the project's deployment history instead (deployments created, status
changes, environments created, stopped, deleted), with who did each; --environment keeps one environment. With
--at and --environment, prints what was deployed to that environment at that time: its last successful
deployment then, the commit and ref, when it became a success and by whom (nothing deployed: exit 0, says so).`,
  options: {
    user: { type: 'string', value: 'ID|USERNAME', description: 'History of this user' },
    group: { type: 'string', value: 'ID|PATH', description: 'History (or members, with --at) of this group' },
    project: { type: 'string', value: 'ID|PATH', description: 'History (or members, with --at) of this project' },
    at: { type: 'string', value: 'ISO-TIME', description: 'Members as of this time instead of the history' },
    since: { type: 'string', value: 'ISO-TIME', description: 'History from this time' },
    until: { type: 'string', value: 'ISO-TIME', description: 'History up to this time' },
    descendants: { type: 'boolean', description: 'With --group: include its subgroups and projects' },
    deployments: { type: 'boolean', description: "With --project: deployments instead of memberships" },
    environment: { type: 'string', value: 'NAME', description: 'With --deployments: one environment (required with --at)' },
    json: { type: 'boolean', description: 'Print JSON' },
    ...commonOptions,
  },
} as const satisfies CommandSpec;

const iso = (flag: string, value: string | undefined): string | undefined => (value === undefined ? undefined : new Date(parseIsoTime(flag, value, spec.name)).toISOString());

/** Labels of the users, groups and projects the output mentions: names, ids only for what has none. */
interface Labels {
  user(id: number | null): string;
  source(type: 'Namespace' | 'Project', id: number): string;
}

const describeEntry = (entry: AuditEntry, labels: Labels): string => {
  const source = entry.source_type === null || entry.source_id === null ? '' : labels.source(entry.source_type, entry.source_id);
  const subject = entry.user_id !== null ? labels.user(entry.user_id) : entry.invite_email ? `<${entry.invite_email}>` : entry.group_id !== undefined ? labels.source('Namespace', entry.group_id) : '';
  const level = entry.from !== undefined ? ` ${entry.from}→${entry.access_level}` : entry.access_level !== undefined ? ` level ${entry.access_level}` : '';
  const extra = [entry.expires_at !== undefined ? `expires ${entry.expires_at ?? 'never'}` : '', entry.override !== undefined ? `override ${entry.override}` : '', entry.reason ? `(${entry.reason})` : ''].filter(Boolean).join(' ');
  const sudo = entry.sudo_from_id !== null ? ` via ${labels.user(entry.sudo_from_id)}` : '';
  return `${entry.at}  #${entry.position}  ${entry.event.padEnd(26)} ${source.padEnd(12)} ${subject}${level}${extra ? ` ${extra}` : ''}  by ${labels.user(entry.actor_id)}${sudo} [${entry.origin}]`;
};

const describeMember = (member: MemberAsOf, labels: Labels): string =>
  `${(member.username ?? labels.user(member.user_id)).padEnd(20)} ${String(member.access_level).padStart(2)}  ${member.state.padEnd(8)} ${member.membership.padEnd(9)} from ${labels.source(member.source_type, member.source_id)}  since ${member.created_at}  by ${labels.user(member.created_by_id)}${member.expires_at ? `  expires ${member.expires_at}` : ''}`;

/** Every name in a state, by kind and id: what --at resolves and prints with. */
const namesOf = (state: State): Record<Kind, Map<number, string>> => ({
  user: new Map([...tableValues(state.users.byId)].map((u) => [u.id, u.username])),
  group: new Map([...tableValues(state.groups.byId)].map((g) => [g.id, g.full_path])),
  project: new Map([...tableValues(state.projects.byId)].map((p) => [p.id, p.path_with_namespace])),
});

const describeDeploymentEntry = (entry: DeploymentAuditEntry, labels: Labels): string => {
  const what =
    entry.deployment_id === null
      ? `environment ${entry.environment ?? '?'}`
      : `${entry.environment ?? '?'} #${entry.iid ?? '?'} ${entry.ref ?? ''}@${(entry.sha ?? '').slice(0, 12)} ${entry.from ? `${entry.from}→` : ''}${entry.status ?? ''}`;
  const sudo = entry.sudo_from_id !== null ? ` via ${labels.user(entry.sudo_from_id)}` : '';
  return `${entry.at}  #${entry.position}  ${entry.event.padEnd(24)} ${what}  by ${labels.user(entry.actor_id)}${sudo} [${entry.origin}]`;
};

const auditDeployments = async (
  context: CliContext,
  events: Parameters<typeof deploymentHistory>[0],
  options: { projectId: number; environment: string | undefined; at: string | undefined; since: string | undefined; until: string | undefined; json: boolean },
  labels: Labels,
): Promise<void> => {
  if (options.at !== undefined) {
    const deployed = await deployedAsOf(events, options.projectId, options.environment!, options.at);
    if (options.json) await printLine(context.stdout, JSON.stringify(deployed, null, 2));
    else if (!deployed) await printLine(context.stdout, `nothing deployed to ${options.environment} of ${labels.source('Project', options.projectId)} as of ${options.at}`);
    else {
      const sudo = deployed.sudo_from_id !== null ? ` via ${labels.user(deployed.sudo_from_id)}` : '';
      await printLine(
        context.stdout,
        `deployed to ${deployed.environment} of ${labels.source('Project', options.projectId)} as of ${options.at}: deployment #${deployed.iid} (id ${deployed.deployment_id}) ${deployed.tag ? 'tag' : 'branch'} ${deployed.ref} at ${deployed.sha}, deployed ${deployed.deployed_at} by ${labels.user(deployed.deployed_by_id)}${sudo} (created by ${labels.user(deployed.user_id)})`,
      );
    }
    return;
  }
  const entries = await deploymentHistory(events, {
    projectId: options.projectId,
    ...(options.environment !== undefined ? { environment: options.environment } : {}),
    ...(options.since ? { since: options.since } : {}),
    ...(options.until ? { until: options.until } : {}),
  });
  if (options.json) await printLine(context.stdout, JSON.stringify(entries, null, 2));
  else for (const entry of entries) await printLine(context.stdout, describeDeploymentEntry(entry, labels));
};

export const audit: Command = {
  spec,
  async run(argv, context: CliContext) {
    const flags = parseFlags(spec, argv);
    const chosen = [flags.user, flags.group, flags.project].filter((v) => v !== undefined).length;
    if (chosen === 0) throw new UsageError('one of --user, --group or --project is required', spec.name);
    if (flags.at !== undefined && flags.group === undefined && flags.project === undefined) throw new UsageError('--at needs --group or --project', spec.name);
    if (flags.deployments && flags.project === undefined) throw new UsageError('--deployments needs --project', spec.name);
    if (flags.deployments && flags.at !== undefined && flags.environment === undefined) throw new UsageError('--deployments --at needs --environment', spec.name);
    if (flags.environment !== undefined && !flags.deployments) throw new UsageError('--environment needs --deployments', spec.name);
    const at = iso('at', flags.at);
    const since = iso('since', flags.since);
    const until = iso('until', flags.until);
    const store = await openDataStore(context.openStore, resolveDataDir(flags.data, context.env), context.cwd, 'existing', { readonly: true }, databaseUrlFrom(flags['database-url'], context.env, spec.name));
    await withStore(store, async ({ events }) => {
      const wanted = ([['user', flags.user], ['group', flags.group], ['project', flags.project]] as const).filter((pair): pair is [Kind, string] => pair[1] !== undefined);
      // Names are resolved at --at first (what they meant then), then as they are now or were last.
      const foundAt: Partial<Record<Kind, number>> = {};
      let then: Record<Kind, Map<number, string>> | undefined;
      const { state, names } = await foldWithNames(
        events,
        at === undefined
          ? undefined
          : {
              time: at,
              visit: (past) => {
                then = namesOf(past);
                for (const [kind, value] of wanted) {
                  const id = findIn(past, kind, value);
                  if (id !== undefined) foundAt[kind] = id;
                }
              },
            },
      );
      const nameOf = (kind: Kind, id: number): string | undefined => then?.[kind].get(id) ?? names.name(kind, id);
      const labels: Labels = {
        user: (id) => (id === null ? 'system' : (nameOf('user', id) ?? `user #${id}`)),
        source: (type, id) => (type === 'Project' ? `project ${nameOf('project', id) ?? `#${id}`}` : `group ${nameOf('group', id) ?? `#${id}`}`),
      };
      const resolveId = (kind: Kind, value: string): number => {
        const id = foundAt[kind] ?? names.idOf(kind, value);
        if (id !== undefined) return id;
        // An id that never existed has an empty history; a name nobody ever had is a mistake.
        if (/^\d+$/.test(value) && at === undefined) return Number(value);
        throw new CliError(`no ${kind} '${value}'${at !== undefined ? ` at ${at}` : ''}, now or before its deletion`);
      };
      const userId = flags.user === undefined ? undefined : resolveId('user', flags.user);
      const groupId = flags.group === undefined ? undefined : resolveId('group', flags.group);
      const projectId = flags.project === undefined ? undefined : resolveId('project', flags.project);
      if (flags.deployments) {
        await auditDeployments(context, events, { projectId: projectId!, environment: flags.environment, at, since, until, json: flags.json === true }, labels);
        return;
      }
      if (at !== undefined) {
        const source = groupId !== undefined ? ({ type: 'Namespace', id: groupId } as const) : ({ type: 'Project', id: projectId! } as const);
        // null: the group or project did not exist at that time (created later or deleted before): no members.
        const members = (await membersAsOf(events, source, at)) ?? [];
        const existed = then?.[source.type === 'Namespace' ? 'group' : 'project'].has(source.id) === true;
        if (flags.json) await printLine(context.stdout, JSON.stringify(members, null, 2));
        else {
          await printLine(context.stdout, `members as of ${at}: ${members.length} (${labels.source(source.type, source.id)}${existed ? '' : ', which did not exist then'})`);
          for (const member of members) await printLine(context.stdout, `  ${describeMember(member, labels)}`);
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
      else for (const entry of entries) await printLine(context.stdout, describeEntry(entry, labels));
    });
    return EXIT_OK;
  },
};
