import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Loaded by path, not by a static import: examples/ is its own TypeScript project (examples/tsconfig.json),
// outside this one's rootDir.
const examplePath = fileURLToPath(new URL('../../examples/embedding.ts', import.meta.url));

interface EmbeddingResult {
  readonly position: number;
  readonly users: readonly string[];
  readonly group: { readonly id: number; readonly full_path: string; readonly members: number } | null;
  readonly project: { readonly id: number; readonly path_with_namespace: string } | null;
  readonly refused: { readonly _tag: string } | null;
  readonly summary: Record<string, number>;
  readonly liveHash: string;
  readonly replayedHash: string;
  readonly replayedPosition: number;
}

describe('examples/embedding.ts', () => {
  it('executes commands, queries the projections, and a replay of the log rebuilds the same state', async () => {
    const { main } = (await import(examplePath)) as { main: () => Promise<EmbeddingResult> };
    const result = await main();
    expect(result.users).toEqual(['root', 'alice']);
    expect(result.group).toMatchObject({ full_path: 'platform' });
    expect(result.project).toMatchObject({ path_with_namespace: 'platform/gateway' });
    expect(result.refused).toMatchObject({ _tag: 'Conflict' });
    expect(result.summary).toMatchObject({ users: 2, groups: 1, projects: 1 });
    expect(result.position).toBeGreaterThan(0);
    expect(result.replayedPosition).toBe(result.position);
    expect(result.liveHash).toMatch(/^[0-9a-f]{64}$/);
    expect(result.replayedHash).toBe(result.liveHash);
  });
});
