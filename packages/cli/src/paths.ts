/** Where a data directory keeps its files. `serve` and the maintenance commands share these names. */
import { isAbsolute, join, resolve } from 'node:path';

/** File name of the event database inside a data directory (its snapshots are beside it: `snapshotsPathOf`). */
export const DATABASE_FILE = 'forgefold.db';

/** Directory of the git repositories inside a data directory. */
export const REPOSITORIES_DIR = 'repositories';

/** Environment variable naming the default data directory. */
export const DATA_ENV = 'FORGEFOLD_DATA';

export const DEFAULT_DATA_DIR = './data';

export interface DataPaths {
  /** The data directory, absolute. */
  readonly dir: string;
  /** `<dir>/forgefold.db`. */
  readonly database: string;
  /** `<dir>/repositories`: the git repositories (`@hashed/…`). */
  readonly repositories: string;
}

export const dataPaths = (dir: string, cwd: string = process.cwd()): DataPaths => {
  const absolute = isAbsolute(dir) ? dir : resolve(cwd, dir);
  return { dir: absolute, database: join(absolute, DATABASE_FILE), repositories: join(absolute, REPOSITORIES_DIR) };
};

/** The data directory a command uses: `--data DIR`, else $FORGEFOLD_DATA, else ./data. */
export const resolveDataDir = (flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string => {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env[DATA_ENV];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_DATA_DIR;
};
