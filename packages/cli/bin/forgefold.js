#!/usr/bin/env node
// Runs the compiled entry point (`pnpm build`, which `pnpm start` and `pnpm test` run first). Not tsx:
// its transform keeps function names by wrapping every closure at creation, which cost a third of the
// write throughput.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('forgefold: not built yet; run `pnpm build` (or `pnpm start`, which builds first)\n');
  process.exit(70);
}
await import(entry.href);
