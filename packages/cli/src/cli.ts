/**
 * `forgefold <command> [flags]`: dispatch, help and error reporting. Commands resolve to an exit code;
 * a CliError is printed as one line with its exit code, anything else as an internal error (exit 1,
 * stack with FORGEFOLD_DEBUG=1).
 */
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, renderHelp, UsageError, wantsHelp, type ParsedArgs } from './args.js';
import { exportLog } from './commands/export.js';
import { importLog } from './commands/import.js';
import { replay } from './commands/replay.js';
import { snapshot } from './commands/snapshot.js';
import { verify } from './commands/verify.js';
import { audit } from './commands/audit.js';
import { migrate } from './commands/migrate.js';
import { printLine, type CliContext, type Command } from './context.js';
import { DATA_ENV, DATABASE_FILE } from './paths.js';
import { PRODUCT_VERSION } from './version.js';

export const PROGRAM = 'forgefold';

export const commands: Readonly<Record<string, Command>> = {
  replay,
  export: exportLog,
  import: importLog,
  verify,
  snapshot,
  audit,
  migrate,
};

/** `serve` lives in ./serve.ts and is loaded only when asked for (it pulls in the HTTP adapter). */
const SERVE_SUMMARY = 'Run the HTTP API over the data directory (see `forgefold serve --help`).';

const runServe = async (args: ParsedArgs): Promise<number> => {
  const { serve } = await import('./serve.js');
  await serve(args);
  return EXIT_OK;
};

export const topLevelHelp = (): string => {
  const rows: [string, string][] = [['serve', SERVE_SUMMARY], ...Object.entries(commands).map(([name, command]): [string, string] => [name, command.spec.summary])];
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    `Usage: ${PROGRAM} <command> [flags]`,
    '',
    'Commands:',
    ...rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    `Every command takes --data DIR (default: $${DATA_ENV}, else ./data; the event database is DIR/${DATABASE_FILE}),`,
    `or --database-url postgres://… (default: $FORGEFOLD_DATABASE_URL) for the log on PostgreSQL, and --help.`,
    `Run '${PROGRAM} <command> --help' for its flags and exit codes; '${PROGRAM} --version' prints the version.`,
    '',
    `Exit codes: ${EXIT_OK} success, ${EXIT_FAILURE} failure, ${EXIT_USAGE} bad flags or arguments (verify documents its own).`,
    '',
  ].join('\n');
};

const report = async (context: CliContext, command: string | undefined, error: unknown): Promise<number> => {
  const prefix = command ? `${PROGRAM} ${command}` : PROGRAM;
  if (error instanceof UsageError) {
    await printLine(context.stderr, `${prefix}: ${error.message}`);
    await printLine(context.stderr, `Run '${PROGRAM}${error.command ?? command ? ` ${error.command ?? command}` : ''} --help' for usage.`);
    return error.exitCode;
  }
  if (error instanceof CliError) {
    await printLine(context.stderr, `${prefix}: ${error.message}`);
    return error.exitCode;
  }
  const debug = context.env['FORGEFOLD_DEBUG'];
  const detail = debug && debug !== '0' && error instanceof Error ? (error.stack ?? error.message) : error instanceof Error ? error.message : String(error);
  await printLine(context.stderr, `${prefix}: error: ${detail}`);
  return EXIT_FAILURE;
};

/** Runs one command line (without the program name) and resolves to the process exit code. */
export const runCli = async (argv: readonly string[], context: CliContext): Promise<number> => {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      await context.stderr.write(topLevelHelp());
      return EXIT_USAGE;
    }
    if (name === '--version' || name === 'version') {
      await printLine(context.stdout, `${PROGRAM} ${PRODUCT_VERSION}`);
      return EXIT_OK;
    }
    if (name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
      await printLine(context.stdout, topLevelHelp().trimEnd());
      return EXIT_OK;
    }
    if (name === 'help') {
      const [topic] = rest;
      if (topic === 'serve') return await runServe({ command: 'serve', argv: ['--help'], env: context.env });
      const command = commands[topic!];
      if (!command) throw new UsageError(`unknown command '${topic}'`);
      await context.stdout.write(renderHelp(command.spec, PROGRAM));
      return EXIT_OK;
    }
    if (name === 'serve') return await runServe({ command: name, argv: rest, env: context.env });
    const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
    if (!command) {
      throw new UsageError(name.startsWith('-') ? `expected a command before ${name}` : `unknown command '${name}' (commands: serve, ${Object.keys(commands).join(', ')})`);
    }
    if (wantsHelp(rest)) {
      await context.stdout.write(renderHelp(command.spec, PROGRAM));
      return EXIT_OK;
    }
    return await command.run(rest, context);
  } catch (error) {
    return report(context, name !== undefined && !name.startsWith('-') && name !== 'help' && (name === 'serve' || Object.hasOwn(commands, name)) ? name : undefined, error);
  }
};
