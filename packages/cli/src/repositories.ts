/**
 * The data directory's git repositories, for the maintenance commands: `verify` compares every repository's refs
 * with the refs the log recorded; `export`/`import` carry the repositories as git bundles beside the NDJSON.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { listRepositories, repositoryRefs, type RepositoriesSlice } from '@forgefold/core';
import { GitRepositories, type Sha } from '@forgefold/git';

/** The repositories slice of a folded state, when the domain has one (tests fold other domains). */
export const repositoriesSlice = (state: unknown): RepositoriesSlice | null => {
  const slice = (state as { repositories?: unknown } | null)?.repositories;
  return slice && typeof slice === 'object' && 'byProject' in slice ? (slice as RepositoriesSlice) : null;
};

export interface RefMismatch {
  readonly project: number;
  readonly ref: string;
  /** What the log recorded (null: no such ref). */
  readonly log: string | null;
  /** What the repository holds (null: no such ref, or no repository). */
  readonly git: string | null;
}

export interface RepositoryCheck {
  readonly checked: number;
  readonly missing: readonly number[];
  readonly mismatches: readonly RefMismatch[];
}

/** Every recorded repository's refs against the repository on disk. */
export const checkRepositories = async (slice: RepositoriesSlice, root: string): Promise<RepositoryCheck> => {
  const storage = new GitRepositories({ root });
  const missing: number[] = [];
  const mismatches: RefMismatch[] = [];
  let checked = 0;
  try {
    for (const record of listRepositories(slice)) {
      checked++;
      const recorded = repositoryRefs(record);
      const actual = await storage.open(record.project_id).refs();
      if (E.isLeft(actual)) {
        missing.push(record.project_id);
        continue;
      }
      const names = new Set([...Object.keys(recorded), ...Object.keys(actual.right)]);
      for (const ref of [...names].sort()) {
        const log = recorded[ref] ?? null;
        const git = actual.right[ref] ?? null;
        if (log !== git) mismatches.push({ project: record.project_id, ref, log, git });
      }
    }
  } finally {
    await storage.close();
  }
  return { checked, missing, mismatches };
};

const bundleName = (projectId: number) => `project-${projectId}.bundle`;

/** Writes one bundle per recorded repository with refs into `dir`; answers how many were written. */
export const exportBundles = async (slice: RepositoriesSlice, root: string, dir: string): Promise<number> => {
  const storage = new GitRepositories({ root });
  let written = 0;
  try {
    await mkdir(dir, { recursive: true });
    for (const record of listRepositories(slice)) {
      const result = await storage.exportBundle(record.project_id, join(dir, bundleName(record.project_id)));
      if (E.isLeft(result)) throw new Error(`bundling the repository of project ${record.project_id} failed: ${result.left.message}`);
      if (result.right.written) written++;
    }
  } finally {
    await storage.close();
  }
  return written;
};

/**
 * Creates every recorded repository from its bundle in `dir` (an empty one when it had no refs), then sets its
 * refs to the log's: a bundle taken while a server ran may hold later moves, which the log (the truth) does not
 * have. Refuses when the log names objects the bundle lacks.
 */
export const importBundles = async (slice: RepositoriesSlice, root: string, dir: string | null): Promise<number> => {
  const storage = new GitRepositories({ root });
  const present = new Set(dir === null ? [] : await readdir(dir).catch(() => [] as string[]));
  let imported = 0;
  try {
    for (const record of listRepositories(slice)) {
      if (await storage.exists(record.project_id)) continue;
      const file = present.has(bundleName(record.project_id)) ? join(dir!, bundleName(record.project_id)) : null;
      const result = await storage.importBundle(record.project_id, file, { default_branch: record.default_branch });
      if (E.isLeft(result)) throw new Error(`importing the repository of project ${record.project_id} failed: ${result.left.message}`);
      const aligned = await storage.open(record.project_id).alignRefs(repositoryRefs(record) as Readonly<Record<string, Sha>>);
      if (E.isLeft(aligned)) throw new Error(`the bundle of project ${record.project_id} lacks objects of the refs the log recorded: ${aligned.left.message}`);
      imported++;
    }
  } finally {
    await storage.close();
  }
  return imported;
};
