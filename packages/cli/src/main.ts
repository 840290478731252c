/** Entry point of the `forgefold` command (bin/forgefold.js runs its compiled form). */
import { runCli } from './cli.js';
import { loadCoreDomain } from './domain.js';
import { openSqlite } from './store.js';

// A closed pipe (`forgefold export | head`) is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  loadDomain: loadCoreDomain,
  openStore: openSqlite,
});
