/**
 * `pnpm bench [filter…]`: runs every bench/*.bench.ts (or those whose file name contains a filter; a filter that
 * is a bench's whole name selects that bench alone, so `startup` is not also `serve-startup`), one after the other,
 * each exporting `default async function (): Promise<void>`. `pnpm bench` runs the compiled copies (.bench.js);
 * under tsx the .ts files run as they are.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchDir } from './lib.js';

const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const benchName = (file: string): string => file.replace(/\.bench\.[jt]s$/, '');
const benches = readdirSync(benchDir).filter((file) => /\.bench\.[jt]s$/.test(file));
const selects = (filter: string, file: string): boolean =>
  benches.some((other) => benchName(other) === filter) ? benchName(file) === filter : file.includes(filter);
const files = benches.filter((file) => filters.length === 0 || filters.some((filter) => selects(filter, file))).sort();

if (files.length === 0) {
  console.error(`No bench/*.bench.ts matches ${filters.join(', ') || '(none found)'}`);
  process.exit(1);
}

let failed = 0;
for (const file of files) {
  console.log(`\n# ${file}`);
  const started = performance.now();
  try {
    const module = (await import(pathToFileURL(join(benchDir, file)).href)) as { default?: unknown };
    if (typeof module.default !== 'function') throw new Error(`${file} has no default export function`);
    await (module.default as () => Promise<void>)();
  } catch (error) {
    failed++;
    console.error(`${file} failed:`, error);
  }
  console.log(`\n(${file}: ${((performance.now() - started) / 1_000).toFixed(1)} s)`);
}
process.exit(failed > 0 ? 1 : 0);
