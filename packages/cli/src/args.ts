/**
 * Flags, help and errors shared by every command. Each command declares its options once (type, value
 * placeholder, description); parsing (node:util parseArgs, strict) and `--help` are derived from that.
 */
import { parseArgs } from 'node:util';

/** Exit codes shared by every command (verify adds its own, documented in its help). */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
/** Bad flags or arguments (sysexits EX_USAGE), so that they never look like a command's own result codes. */
export const EXIT_USAGE = 64;

/** What `forgefold <command>` hands to a command module: the command name and its raw arguments. */
export interface ParsedArgs {
  readonly command: string;
  /** The arguments after the command name, not yet parsed: each command parses its own flags (see `parseFlags`). */
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** Placeholder shown in help for a string option, e.g. "FILE". */
  readonly value?: string;
  readonly description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly description?: string;
  readonly options: O;
  /** Exit codes and their meaning, listed in help. */
  readonly exitCodes?: readonly (readonly [number, string])[];
}

export type FlagValues<O extends OptionSpecs> = { -readonly [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean };

/** A failure the user can act on: printed as one line (no stack), with an exit code. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT_FAILURE) {
    super(message);
    this.name = 'CliError';
  }
}

/** Bad flags or arguments: printed with a pointer to the command's help, exit code 64. */
export class UsageError extends CliError {
  constructor(message: string, readonly command?: string) {
    super(message, EXIT_USAGE);
    this.name = 'UsageError';
  }
}

/** Flags every command accepts. */
export const commonOptions = {
  data: { type: 'string', value: 'DIR', description: 'Data directory holding forgefold.db (default: $FORGEFOLD_DATA, else ./data)' },
  'database-url': {
    type: 'string',
    value: 'URL',
    description: 'The log on PostgreSQL (postgres://user@host:port/db[?schema=NAME]) instead of DIR/forgefold.db (default: $FORGEFOLD_DATABASE_URL)',
  },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
} as const satisfies OptionSpecs;

export const wantsHelp = (argv: readonly string[]): boolean => {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
};

/** Node's parseArgs messages carry advice about positionals; keep the first sentence, in our words. */
const describeParseError = (error: unknown): string => {
  const { code, message } = error as { code?: string; message?: string };
  const text = String(message ?? error);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const match = /Unknown option '([^']+)'/.exec(text);
    return `unknown option ${match ? match[1] : text}`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const match = /Unexpected argument '([^']+)'/.exec(text);
    return `unexpected argument ${match ? `'${match[1]}'` : text}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const missing = /Option '(-\w, )?(--[\w-]+)[^']*' argument missing/.exec(text);
    if (missing) return `option ${missing[2]} needs a value`;
    const boolean = /Option '(-\w, )?(--[\w-]+)' does not take an argument/.exec(text);
    if (boolean) return `option ${boolean[2]} does not take a value`;
  }
  return text.split('. ')[0] ?? text;
};

/** Parses a command's flags strictly (no positionals, no unknown options). Throws UsageError. */
export const parseFlags = <O extends OptionSpecs>(spec: CommandSpec<O>, argv: readonly string[]): FlagValues<O> => {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = option.short ? { type: option.type, short: option.short } : { type: option.type };
  }
  try {
    const { values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false });
    return values as FlagValues<O>;
  } catch (error) {
    throw new UsageError(describeParseError(error), spec.name);
  }
};

export const parseNonNegativeInteger = (flag: string, text: string, command?: string): number => {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`--${flag} must be a non-negative integer, got '${text}'`, command);
  const value = Number(text.trim());
  if (!Number.isSafeInteger(value)) throw new UsageError(`--${flag} is too large: '${text}'`, command);
  return value;
};

/** Accepts an ISO-8601 date or date-time ("2026-11-22", "2026-11-22T13:46:00Z", with an offset). Returns epoch ms. */
export const parseIsoTime = (flag: string, text: string, command?: string): number => {
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
  const value = Date.parse(text);
  if (!iso.test(text.trim()) || Number.isNaN(value)) {
    throw new UsageError(`--${flag} must be an ISO-8601 time such as 2026-11-22T13:46:00Z, got '${text}'`, command);
  }
  return value;
};

export const renderHelp = (spec: CommandSpec, program = 'forgefold'): string => {
  const lines = [`Usage: ${program} ${spec.usage}`, '', spec.summary];
  if (spec.description) lines.push('', spec.description.trim());
  const rows = Object.entries(spec.options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : '    '}--${name}${option.type === 'string' ? ` ${option.value ?? 'VALUE'}` : ''}`;
    return [flag, option.description] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  lines.push('', 'Options:', ...rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`));
  const exitCodes: readonly (readonly [number, string])[] = spec.exitCodes ?? [
    [EXIT_OK, 'success'],
    [EXIT_FAILURE, 'failure (the message says why)'],
    [EXIT_USAGE, 'bad flags or arguments'],
  ];
  lines.push('', 'Exit codes:', ...exitCodes.map(([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`));
  return `${lines.join('\n')}\n`;
};
