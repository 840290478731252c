/**
 * `GitRepositories`: the port over the git CLI. One bare repository per project under `root`, at the
 * platform's hashed path; created whole in a temporary directory and renamed into place, removed by renaming
 * away first, so a crash leaves no half repository at a project's path.
 */
import { createHash, randomUUID } from 'node:crypto';
import { access, appendFile, chmod, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fail, guard, invalidRefName, repositoryExists, repositoryNotFound } from './errors.js';
import { git, gitText } from './exec.js';
import type { RepoContext } from './context.js';
import { HOOK_CLIENT_FILE, hookClientScript, preReceiveScript } from './hooks.js';
import { KeyedLock } from './lock.js';
import { RefUpdaterPool } from './ref-updater.js';
import { ObjectReaderPool } from './object-reader.js';
import type { ProjectKey, Repositories, Repository } from './port.js';
import { PushGateway } from './push-gateway.js';
import { isValidNewRefName } from './ref-names.js';
import { readAllRefFiles, readHeadBranch } from './ref-advertisement.js';
import * as reads from './reads.js';
import * as refs from './refs.js';
import { PackObjectsSpares } from './clone-pack.js';
import { type SmartHttpRequest, type UploadPackAnswer, serveSmartHttp } from './smart-http.js';
import { UploadPackCache } from './upload-pack-cache.js';
import type { BundleResult, CreateRepositoryInput, CreatedRepository, GitResult, RefChange, Sha, WriteOptions } from './types.js';
import * as writes from './writes.js';

/** Settings every repository gets (git's config format; repeated sections are merged by git). */
const repositoryConfig = `[core]
	logAllRefUpdates = false
[receive]
	fsckObjects = true
	autogc = false
[gc]
	auto = 0
[uploadpack]
	allowFilter = true
`;

export interface GitRepositoriesOptions {
  /** The storage directory; repositories live below `root/@hashed/`. */
  readonly root: string;
  /** Batch readers kept open at once (one `git cat-file` process each). Default 16. */
  readonly maxReaders?: number;
  /** Memory for upload-pack answers reused across clones of unchanged refs (upload-pack-cache.ts). Default 64 MiB; 0 turns it off. */
  readonly uploadPackCacheBytes?: number;
  /** Told how each upload-pack request was answered (smart-http.ts), for metrics and tests. */
  readonly onUploadPack?: (answer: UploadPackAnswer) => void;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

export class GitRepositories implements Repositories {
  private readonly objects: ObjectReaderPool;
  private readonly lock = new KeyedLock();
  private readonly refUpdates = new RefUpdaterPool();
  private gateway: Promise<PushGateway> | null = null;
  private readonly uploadPackCache: UploadPackCache | undefined;
  private readonly spares = new PackObjectsSpares();

  constructor(private readonly options: GitRepositoriesOptions) {
    this.objects = new ObjectReaderPool(options.maxReaders ?? 16);
    const budget = options.uploadPackCacheBytes ?? 64 * 1024 * 1024;
    this.uploadPackCache = budget > 0 ? new UploadPackCache(budget) : undefined;
  }

  /** `@hashed/<first 2 hex>/<next 2 hex>/<sha256 of the project id>.git`, as the platform's hashed storage. */
  pathOf(project: ProjectKey): string {
    const hash = createHash('sha256').update(String(project)).digest('hex');
    return join(this.options.root, '@hashed', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
  }

  exists(project: ProjectKey): Promise<boolean> {
    return exists(join(this.pathOf(project), 'HEAD'));
  }

  create(project: ProjectKey, input: CreateRepositoryInput = {}, options?: WriteOptions): GitResult<CreatedRepository> {
    return guard(async () => {
      const path = this.pathOf(project);
      const defaultBranch = input.default_branch ?? 'main';
      if (!isValidNewRefName(defaultBranch)) fail(invalidRefName(defaultBranch, 'Branch name is invalid'));
      await this.lock.run(path, async () => {
        if (await exists(path)) fail(repositoryExists());
        await this.initialize(path, defaultBranch);
      });
      if (input.readme === undefined) return { path, commit: null, changes: [] };
      const { readme } = input;
      const result = await writes.commitFiles(
        this.context(path),
        {
          branch: defaultBranch,
          commit_message: readme.message ?? 'Initial commit',
          actions: [{ action: 'create', file_path: readme.file_path ?? 'README.md', content: readme.content }],
          author: readme.author,
          committer: readme.committer,
        },
        options,
      );
      return { path, commit: result.commit, changes: result.changes };
    });
  }

  remove(project: ProjectKey): GitResult<void> {
    return guard(async () => {
      const path = this.pathOf(project);
      await this.lock.run(path, async () => {
        if (!(await exists(path))) fail(repositoryNotFound());
        this.objects.release(path);
        this.refUpdates.release(path);
        this.spares.release(path);
        this.uploadPackCache?.forget(path);
        // Out of the project's path at once; the slow delete follows.
        const doomed = `${path}+deleted-${randomUUID()}`;
        await rename(path, doomed);
        await rm(doomed, { recursive: true, force: true });
      });
    });
  }

  open(project: ProjectKey): Repository {
    return new GitRepository(this.context(this.pathOf(project)));
  }

  exportBundle(project: ProjectKey, file: string): GitResult<BundleResult> {
    return guard(async () => {
      const ctx = await this.existing(project);
      const count = Object.keys(await refs.allRefs(ctx)).length;
      if (count === 0) return { written: false, refs: 0 };
      await mkdir(dirname(file), { recursive: true });
      await git(ctx.gitDir, ['bundle', 'create', '--quiet', file, '--all']);
      return { written: true, refs: count };
    });
  }

  importBundle(project: ProjectKey, file: string | null, input: { readonly default_branch?: string } = {}): GitResult<Readonly<Record<string, Sha>>> {
    return guard(async () => {
      const path = this.pathOf(project);
      const defaultBranch = input.default_branch ?? 'main';
      if (!isValidNewRefName(defaultBranch)) fail(invalidRefName(defaultBranch, 'Branch name is invalid'));
      return this.lock.run(path, async () => {
        if (await exists(path)) fail(repositoryExists());
        await this.initialize(path, defaultBranch, async (staging) => {
          // Refs exactly as bundled (HEAD is set apart, to the project's default branch).
          if (file !== null) await git(staging, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', file, '+refs/*:refs/*']);
        });
        return refs.allRefs(this.context(path));
      });
    });
  }

  copyRefs(target: ProjectKey, source: ProjectKey, options?: WriteOptions): GitResult<readonly RefChange[]> {
    return guard(async () => {
      const from = await this.existing(source);
      const ctx = await this.existing(target);
      return writes.locked(ctx, options, async () => {
        const before = await refs.allRefs(ctx);
        // Objects are copied (a fetch over a pipe), so the fork does not depend on its source's directory.
        await git(ctx.gitDir, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', from.gitDir, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']);
        const after = await refs.allRefs(ctx);
        const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
        const changes = names.filter((ref) => before[ref] !== after[ref]).map((ref): RefChange => ({ ref, oldSha: before[ref] ?? null, newSha: after[ref] ?? null }));
        return { changes };
      }).then((result) => result.changes);
    });
  }

  /**
   * `git fetch --prune` of every ref from another server's smart HTTP (a Geo secondary syncing from its primary),
   * under the repository's lock; `extraHeader` authenticates (`http.extraHeader`).
   */
  fetchMirror(project: ProjectKey, url: string, options: { readonly extraHeader?: string } = {}): GitResult<void> {
    return guard(async () => {
      const ctx = await this.existing(project);
      await ctx.lock.run(ctx.gitDir, async () => {
        const config = options.extraHeader ? ['-c', `http.extraHeader=${options.extraHeader}`] : [];
        await git(ctx.gitDir, [...config, 'fetch', '--prune', '--quiet', '--no-write-fetch-head', url, '+refs/*:refs/*']);
      });
    });
  }

  async serveHttp(project: ProjectKey, req: IncomingMessage, res: ServerResponse, request: SmartHttpRequest): Promise<void> {
    const path = this.pathOf(project);
    // Synchronous: one stat, cheaper than a trip through the thread pool on a busy machine.
    if (!existsSync(join(path, 'HEAD'))) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Repository not found\n');
      return;
    }
    await serveSmartHttp({ ctx: this.context(path), gateway: () => this.pushGateway(), spares: this.spares, ...(this.uploadPackCache ? { cache: this.uploadPackCache } : {}), ...(this.options.onUploadPack ? { onUploadPack: this.options.onUploadPack } : {}) }, req, res, request);
  }

  sweep(keep: readonly ProjectKey[] | ((path: string) => boolean)): GitResult<readonly string[]> {
    return guard(async () => {
      const keptPaths = typeof keep === 'function' ? null : new Set(keep.map((project) => this.pathOf(project)));
      const kept = typeof keep === 'function' ? keep : (path: string) => keptPaths!.has(path);
      const hashed = join(this.options.root, '@hashed');
      const removed: string[] = [];
      const list = (dir: string) => readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const first of await list(hashed)) {
        if (!first.isDirectory()) continue;
        for (const second of await list(join(hashed, first.name))) {
          if (!second.isDirectory()) continue;
          for (const entry of await list(join(hashed, first.name, second.name))) {
            const path = join(hashed, first.name, second.name, entry.name);
            // Only names this storage makes: `<sha256>.git`, and its staging siblings.
            if (!/^[0-9a-f]{64}\.git(\+(creating|deleted)-[0-9a-f-]{36})?$/.test(entry.name)) continue;
            // Under the lock of the repository's own path, which creations and removals hold while their staging
            // directory exists: a sweep beside a serving server (start-up reconciles in the background) never
            // takes a creation in progress for a leftover, and decides on `keep` once nothing can be under way.
            const own = path.slice(0, path.length - entry.name.length + 68);
            const swept = await this.lock.run(own, async () => {
              if ((own === path && kept(own)) || !(await exists(path))) return false;
              this.objects.release(path);
              this.refUpdates.release(path);
              this.spares.release(path);
              this.uploadPackCache?.forget(path);
              await rm(path, { recursive: true, force: true });
              return true;
            });
            if (swept) removed.push(path);
          }
        }
      }
      return removed;
    });
  }

  async close(): Promise<void> {
    this.objects.close();
    this.refUpdates.close();
    this.spares.close();
    const gateway = this.gateway;
    this.gateway = null;
    if (gateway) await (await gateway).close();
  }

  private pushGateway(): Promise<PushGateway> {
    this.gateway ??= PushGateway.start();
    return this.gateway;
  }

  private context(gitDir: string): RepoContext {
    return { gitDir, objects: this.objects, lock: this.lock, refUpdates: this.refUpdates };
  }

  private async existing(project: ProjectKey): Promise<RepoContext> {
    const path = this.pathOf(project);
    if (!(await exists(join(path, 'HEAD')))) fail(repositoryNotFound());
    return this.context(path);
  }

  /** A bare repository, made in a staging directory and renamed to `path` when complete. */
  private async initialize(path: string, defaultBranch: string, fill?: (staging: string) => Promise<void>): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    const staging = `${path}+creating-${randomUUID()}`;
    try {
      // No templates: no sample hooks, no description; our hooks and settings only.
      await git(null, ['init', '--bare', '--quiet', '--template=', `--initial-branch=${defaultBranch}`, staging]);
      await appendFile(join(staging, 'config'), repositoryConfig);
      await mkdir(join(staging, 'hooks'), { recursive: true });
      await writeFile(join(staging, 'hooks', HOOK_CLIENT_FILE), hookClientScript);
      await writeFile(join(staging, 'hooks', 'pre-receive'), preReceiveScript);
      await chmod(join(staging, 'hooks', 'pre-receive'), 0o755);
      await fill?.(staging);
      await rename(staging, path);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
  }
}

/** One repository. Every operation checks that it exists, then answers a value. */
class GitRepository implements Repository {
  constructor(private readonly ctx: RepoContext) {}

  private run<A>(operation: (ctx: RepoContext) => Promise<A>): GitResult<A> {
    return guard(async () => {
      if (!(await exists(join(this.ctx.gitDir, 'HEAD')))) fail(repositoryNotFound());
      return operation(this.ctx);
    });
  }

  findBranch: Repository['findBranch'] = (name) => this.run((ctx) => refs.findBranch(ctx, name));
  listBranches: Repository['listBranches'] = (query) => this.run((ctx) => refs.listBranches(ctx, query));
  findTag: Repository['findTag'] = (name) => this.run((ctx) => refs.findTag(ctx, name));
  listTags: Repository['listTags'] = (query) => this.run((ctx) => refs.listTags(ctx, query));
  refs: Repository['refs'] = () => this.run((ctx) => refs.allRefs(ctx));

  headBranch: Repository['headBranch'] = () =>
    this.run(async (ctx) => readHeadBranch(ctx.gitDir) ?? (await gitText(ctx.gitDir, ['symbolic-ref', 'HEAD'])).replace(/^refs\/heads\//, ''));

  isEmpty: Repository['isEmpty'] = () =>
    this.run(async (ctx) => (await gitText(ctx.gitDir, ['for-each-ref', '--count=1', '--format=x', 'refs/heads/'])) === '');

  findCommit: Repository['findCommit'] = (revision) => this.run((ctx) => reads.findCommit(ctx, revision));
  commitStats: Repository['commitStats'] = (revision) => this.run((ctx) => reads.commitStats(ctx, revision));
  log: Repository['log'] = (query) => this.run((ctx) => reads.log(ctx, query));
  commitsBetween: Repository['commitsBetween'] = (from, to, limit) => this.run((ctx) => reads.commitsBetween(ctx, from, to, limit));
  mergeBase: Repository['mergeBase'] = (a, b, ...more) => this.run((ctx) => reads.mergeBase(ctx, a, b, ...more));

  isAncestor: Repository['isAncestor'] = (ancestor, descendant) =>
    this.run(async (ctx) => {
      const [a, d] = await Promise.all([reads.findCommit(ctx, ancestor), reads.findCommit(ctx, descendant)]);
      return reads.isAncestor(ctx, a.id, d.id);
    });

  refsContaining: Repository['refsContaining'] = (revision, type) => this.run((ctx) => reads.refsContaining(ctx, revision, type));
  mergeable: Repository['mergeable'] = (target, source) => this.run((ctx) => reads.mergeable(ctx, target, source));
  tree: Repository['tree'] = (query) => this.run((ctx) => reads.tree(ctx, query));
  blob: Repository['blob'] = (query) => this.run((ctx) => reads.blob(ctx, query));
  rawBlob: Repository['rawBlob'] = (id) => this.run((ctx) => reads.rawBlob(ctx, id));
  trailers: Repository['trailers'] = (shas) => this.run((ctx) => reads.trailers(ctx, shas));
  blame: Repository['blame'] = (query) => this.run((ctx) => reads.blame(ctx, query));
  archive: Repository['archive'] = (query) => this.run((ctx) => reads.archive(ctx, query));
  commitDiff: Repository['commitDiff'] = (revision, options) => this.run((ctx) => reads.commitDiff(ctx, revision, options));
  compare: Repository['compare'] = (query) => this.run((ctx) => reads.compare(ctx, query));

  commitFiles: Repository['commitFiles'] = (input, options) => this.run((ctx) => writes.commitFiles(ctx, input, options));
  createBranch: Repository['createBranch'] = (input, options) => this.run((ctx) => writes.createBranch(ctx, input, options));
  deleteBranch: Repository['deleteBranch'] = (input, options) => this.run((ctx) => writes.deleteBranch(ctx, input, options));
  createTag: Repository['createTag'] = (input, options) => this.run((ctx) => writes.createTag(ctx, input, options));
  deleteTag: Repository['deleteTag'] = (input, options) => this.run((ctx) => writes.deleteTag(ctx, input, options));
  merge: Repository['merge'] = (input, options) => this.run((ctx) => writes.merge(ctx, input, options));

  setHeadBranch: Repository['setHeadBranch'] = (name, options) =>
    this.run(async (ctx) => {
      if (!isValidNewRefName(name)) fail(invalidRefName(name, 'Branch name is invalid'));
      const point = () => git(ctx.gitDir, ['symbolic-ref', 'HEAD', `refs/heads/${name}`]);
      await (options?.heldLock ? point() : ctx.lock.run(ctx.gitDir, point));
    });

  alignRefs: Repository['alignRefs'] = (wanted) =>
    this.run((ctx) =>
      ctx.lock.run(ctx.gitDir, async () => {
        // Read from the files when git's own layout allows: start-up aligns every repository, and a process each
        // made a restart O(projects) git processes.
        const files = readAllRefFiles(ctx.gitDir);
        const current = files ? (Object.fromEntries(files) as Record<string, Sha>) : await refs.allRefs(ctx);
        const changes: RefChange[] = [];
        for (const [ref, sha] of Object.entries(current)) if (!(ref in wanted)) changes.push({ ref, oldSha: sha, newSha: null });
        for (const [ref, sha] of Object.entries(wanted)) if (current[ref] !== sha) changes.push({ ref, oldSha: current[ref] ?? null, newSha: sha });
        await writes.updateRefs(ctx, changes);
        return changes;
      }),
    );

  packRefs: Repository['packRefs'] = () =>
    this.run(async (ctx) => {
      await ctx.lock.run(ctx.gitDir, () => git(ctx.gitDir, ['pack-refs', '--all', '--prune']));
    });
}
