/**
 * The core's import graph: the kernel imports only the kernel; shared helpers only the kernel and shared; a
 * module imports the kernel, shared helpers, its own files, and of another module only its public surface
 * (events, commands, projection, queries, builders, abilities) — never its decider, evolve, indexes or module
 * descriptor; nothing below the composition imports the composition (state, events, forgefold, audit, index).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages/core/src');
const PUBLIC = new Set(['events', 'commands', 'projection', 'queries', 'builders', 'abilities']);

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : name.endsWith('.ts') ? [path] : [];
  });

/** Relative specifiers of `import … from`, `export … from` and `import(…)`. */
const importsOf = (source: string): string[] =>
  [...source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.[^']+)'/g)].map((match) => match[1]!);

/** Where a file sits: the kernel, shared, a module (with its file's base name), or the composition. */
const placeOf = (path: string): { layer: 'kernel' | 'shared' | 'module' | 'composition'; module?: string; file: string } => {
  const parts = relative(ROOT, path).split(sep);
  const file = parts[parts.length - 1]!.replace(/\.(js|ts)$/, '');
  if (parts[0] === 'kernel') return { layer: 'kernel', file };
  if (parts[0] === 'modules' && parts[1] === 'shared') return { layer: 'shared', file };
  if (parts[0] === 'modules') return { layer: 'module', module: parts[1]!, file };
  return { layer: 'composition', file };
};

/** Every violation of the rules above, as "from → to". */
const violations = (files: readonly string[], read: (path: string) => string): string[] => {
  const out: string[] = [];
  for (const path of files) {
    const from = placeOf(path);
    for (const specifier of importsOf(read(path))) {
      const target = placeOf(resolve(dirname(path), specifier));
      const edge = `${relative(ROOT, path)} → ${specifier}`;
      if (from.layer === 'composition') continue;
      if (target.layer === 'composition') out.push(`${edge} (the composition is above every module)`);
      else if (from.layer === 'kernel' && target.layer !== 'kernel') out.push(`${edge} (the kernel imports only the kernel)`);
      else if (from.layer === 'shared' && target.layer === 'module') out.push(`${edge} (shared helpers import no module)`);
      else if (from.layer === 'module' && target.layer === 'module' && target.module !== from.module && !PUBLIC.has(target.file)) {
        out.push(`${edge} (another module's internals: only ${[...PUBLIC].join(', ')} are public)`);
      }
    }
  }
  return out;
};

describe('import boundaries of packages/core/src', () => {
  it('has no upward import and no import of another module’s decider, evolve or indexes', () => {
    const files = filesUnder(ROOT);
    expect(files.length).toBeGreaterThan(30);
    expect(violations(files, (path) => readFileSync(path, 'utf8'))).toEqual([]);
  });

  it('reports the imports the rules forbid', () => {
    const at = (path: string) => join(ROOT, path);
    const sources: Record<string, string> = {
      [at('modules/groups/decider.ts')]: "import { memberAdded } from '../members/builders.js';\nimport { onGroupCreated } from '../members/indexes.js';\nimport type { State } from '../../state.js';",
      [at('modules/projects/decider.ts')]: "export { deleteGroupEvents } from '../groups/decider.js';\nimport { findGroup } from '../groups/queries.js';",
      [at('modules/shared/policy.ts')]: "import { groupAccessLevel } from '../members/queries.js';",
      [at('kernel/application.ts')]: "import type { State } from '../state.js';",
    };
    expect(violations(Object.keys(sources), (path) => sources[path]!)).toEqual([
      "modules/groups/decider.ts → ../members/indexes.js (another module's internals: only events, commands, projection, queries, builders, abilities are public)",
      'modules/groups/decider.ts → ../../state.js (the composition is above every module)',
      "modules/projects/decider.ts → ../groups/decider.js (another module's internals: only events, commands, projection, queries, builders, abilities are public)",
      'modules/shared/policy.ts → ../members/queries.js (shared helpers import no module)',
      'kernel/application.ts → ../state.js (the composition is above every module)',
    ]);
  });
});
