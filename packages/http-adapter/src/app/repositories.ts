/**
 * The shell around the git engine: it performs git writes and records them as events, keeping the rule that the
 * event log is the truth about refs.
 *
 * - An API write runs in the engine under the repository's lock; its `record` step (still under the lock) reads
 *   the facts the events need from git (tag details, whether a branch move was forced, merge request versions)
 *   and runs `UpdateRefs` (or a merge request command). A refused or failed command moves the refs back, so
 *   nothing unrecorded stays.
 * - A push is checked by the same policy before any ref moves (`pre-receive`), and recorded after receive-pack
 *   succeeded; a failed record moves the refs back too.
 * - At start-up, `reconcile` makes the disk agree with the log after a crash: every project's repository exists,
 *   and gets exactly the refs the log recorded (a crash between a ref move and its event leaves the
 *   move unrecorded, so it is undone), and repositories of deleted projects are removed.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  BRANCH_PREFIX,
  TAG_PREFIX,
  findProject,
  findRepository,
  findUser,
  listRepositories,
  openMergeRequestsFrom,
  refMoveRefusal,
  repositoryRefs,
  type Actor,
  type Application,
  type Clock,
  type DomainError,
  type ForgefoldCommand,
  type Project,
  type RefUpdate,
  type State,
  type VersionFact,
  currentVersion,
} from '@forgefold/core';
import type { GitError, PushHandlers, RefChange, Repositories, Repository, Sha, Signature, WriteOptions } from '@forgefold/git';

export type RecordedCommand = (changes: readonly RefUpdate[], versions: readonly VersionFact[]) => ForgefoldCommand;

/** A record step refused by the decider: the write answers this error (and its refs were moved back). */
export class RecordRefused extends Error {
  constructor(readonly error: DomainError) {
    super(`record refused: ${JSON.stringify(error)}`);
    this.name = 'RecordRefused';
  }
}

/** A git error, or the decider's refusal that undid the write. */
export const refusalOf = (error: GitError): DomainError | null =>
  error._tag === 'RecordFailed' && error.cause instanceof RecordRefused ? error.cause.error : null;

export interface ReconcileReport {
  readonly created: number[];
  readonly aligned: { readonly project: number; readonly changes: readonly RefChange[] }[];
  readonly removed: string[];
  readonly failed: { readonly project: number; readonly message: string }[];
}

const isSha = (value: string | null): value is Sha => value !== null;

export class RepositoryHost {
  /** Bumped whenever refs were moved back: cached reads of the repository are then stale at the same log position. */
  generation = 0;
  private stopWatching: (() => void) | null = null;
  /** A number per repository record seen: the record is a new object (immer) whenever its refs or HEAD change. */
  private readonly recordVersions = new WeakMap<object, number>();
  private lastRecordVersion = 0;

  constructor(
    readonly app: Application<ForgefoldCommand, State>,
    readonly clock: Clock,
    readonly repositories: Repositories,
    private readonly log: (entry: Readonly<Record<string, unknown>>) => void = () => undefined,
  ) {}

  open(projectId: number): Repository {
    return this.repositories.open(projectId);
  }

  /**
   * A token that changes whenever the project's refs may have moved: the log's record of the repository, and
   * `generation` for moves undone. Smart HTTP reuses upload-pack answers while it holds.
   */
  refsVersion(projectId: number): string | undefined {
    const record = findRepository(this.app.state.repositories, projectId);
    if (!record) return undefined;
    let version = this.recordVersions.get(record);
    if (version === undefined) {
      version = ++this.lastRecordVersion;
      this.recordVersions.set(record, version);
    }
    return `${this.generation}.${version}`;
  }

  /** The signature of a user at the clock's time (`commit_email` is the user's e-mail here). */
  signatureOf(userId: number | null, override: { readonly name?: string | null; readonly email?: string | null } = {}): Signature {
    const user = userId === null ? undefined : findUser(this.app.state.users, userId);
    return {
      name: override.name || user?.name || 'Forgefold',
      email: override.email || user?.email || 'noreply@forgefold.invalid',
      at: this.clock.now(),
    };
  }

  /**
   * Creates the git repository of a project the log recorded (after `ProjectCreated`/`RepositoryCreated`), with a
   * README commit when asked; the commit is recorded like any other.
   */
  async initialize(projectId: number, actor: Actor, readme: { readonly content: string } | null): Promise<void> {
    const repository = findRepository(this.app.state.repositories, projectId);
    if (!repository) return;
    const created = await this.repositories.create(projectId, { default_branch: repository.default_branch });
    if (E.isLeft(created)) {
      this.log({ severity: 'ERROR', message: `creating the repository of project ${projectId} failed: ${created.left.message}` });
      return;
    }
    if (readme === null) return;
    const author = this.signatureOf(actor.userId);
    const result = await this.open(projectId).commitFiles(
      {
        branch: repository.default_branch,
        commit_message: 'Initial commit',
        actions: [{ action: 'create', file_path: 'README.md', content: readme.content }],
        author,
        committer: author,
      },
      this.recorder(projectId, actor),
    );
    if (E.isLeft(result)) this.log({ severity: 'ERROR', message: `the README commit of project ${projectId} failed: ${result.left.message}` });
  }

  /**
   * Creates the git repository of a fork the log recorded, with every branch and tag of its source's (copied,
   * then recorded as `UpdateRefs` by the forking user).
   */
  async initializeFork(projectId: number, sourceId: number, actor: Actor): Promise<void> {
    await this.initialize(projectId, actor, null);
    const copied = await this.repositories.copyRefs(projectId, sourceId, this.recorder(projectId, actor));
    if (E.isLeft(copied)) this.log({ severity: 'ERROR', message: `copying the repository of project ${sourceId} into its fork ${projectId} failed: ${copied.left.message}` });
  }

  /** The facts the events of `changes` need, read from git (under the repository's lock, after the moves). */
  async facts(projectId: number, changes: readonly RefChange[]): Promise<{ updates: RefUpdate[]; versions: VersionFact[] }> {
    const repository = this.open(projectId);
    const isAncestor = async (a: Sha, b: Sha) => E.getOrElse(() => false)(await repository.isAncestor(a, b));
    const updates: RefUpdate[] = [];
    for (const change of changes) {
      const update: { -readonly [K in keyof RefUpdate]: RefUpdate[K] } = { ref: change.ref, old_sha: change.oldSha, new_sha: change.newSha };
      if (change.ref.startsWith(BRANCH_PREFIX) && change.oldSha && change.newSha) {
        // A commit on top of the old head (an API commit, a merge) is no force; otherwise ask git's ancestry.
        const commit = await repository.findCommit(change.newSha);
        const onTop = E.isRight(commit) && commit.right.parent_ids.includes(change.oldSha);
        update.forced = !onTop && !(await isAncestor(change.oldSha, change.newSha));
      }
      if (change.ref.startsWith(TAG_PREFIX) && change.newSha) {
        const tag = await repository.findTag(change.ref.slice(TAG_PREFIX.length));
        update.tag = E.isRight(tag)
          ? { commit_sha: tag.right.commit?.id ?? null, committed_date: tag.right.commit?.committed_date ?? null, message: tag.right.message, tagger: tag.right.tagger }
          : { commit_sha: null, committed_date: null, message: '', tagger: null };
      }
      updates.push(update);
    }
    const moved = changes.filter((change) => change.ref.startsWith(BRANCH_PREFIX) && change.newSha !== null);
    const versions: VersionFact[] = [];
    for (const change of moved) {
      for (const mr of openMergeRequestsFrom(this.app.state.repositories, projectId, change.ref.slice(BRANCH_PREFIX.length))) {
        const version = await this.versionFact(projectId, change.newSha!, mr.target_branch);
        // The commits the source gained since the last version: the "added N commits" system note's list.
        const previous = currentVersion(mr)?.head_commit_sha ?? null;
        const gained = previous === null ? null : await repository.commitsBetween(previous, change.newSha!, 100);
        const commits = gained && E.isRight(gained) ? [...gained.right.items].reverse().map((commit) => ({ id: commit.id, title: commit.title })) : [];
        versions.push({ iid: mr.iid, ...version, ...(commits.length > 0 ? { commits } : {}) });
      }
    }
    return { updates, versions };
  }

  /** A merge request version for a source head against the target branch as git has it now. */
  async versionFact(projectId: number, head: string, targetBranch: string): Promise<Omit<VersionFact, 'iid'>> {
    const repository = this.open(projectId);
    const target = await repository.findBranch(targetBranch);
    const start = E.isRight(target) ? target.right.commit.id : null;
    const base = start === null ? E.right(null) : await repository.mergeBase(start, head);
    return { head_commit_sha: head, base_commit_sha: E.isRight(base) ? base.right : null, start_commit_sha: start };
  }

  /** Runs a command in a write's record step; a refusal throws (the engine then moves the refs back). */
  private async run(actor: Actor, command: ForgefoldCommand): Promise<void> {
    const result = await this.app.execute(actor, command);
    if (E.isLeft(result)) {
      this.generation++;
      throw new RecordRefused(result.left);
    }
  }

  /** `WriteOptions` that record an API write as `UpdateRefs` (or as the command `build` makes). */
  recorder(projectId: number, actor: Actor, build?: RecordedCommand): WriteOptions {
    return {
      record: async (changes) => {
        const { updates, versions } = await this.facts(projectId, changes);
        await this.run(actor, build ? build(updates, versions) : { type: 'UpdateRefs', project_id: projectId, via: 'api', changes: updates, versions });
      },
    };
  }

  /** The push policy (checked in `pre-receive`) and the recording of what receive-pack applied. */
  pushHandlers(project: Project, actor: Actor): PushHandlers {
    return {
      check: async (updates, context) => {
        const state = this.app.state;
        const repository = findRepository(state.repositories, project.id);
        const current = findProject(state.projects, project.id);
        if (!repository || !current) return { accepted: false, message: 'GitLab: The project you were looking for could not be found.' };
        for (const update of updates) {
          const forced = update.ref.startsWith(BRANCH_PREFIX) && update.oldSha !== null && update.newSha !== null && !(await context.isAncestor(update.oldSha, update.newSha));
          const refusal = refMoveRefusal(state, actor.userId, current, repository, { ref: update.ref, old_sha: update.oldSha, new_sha: update.newSha, forced }, 'push');
          if (refusal) return { accepted: false, message: `GitLab: ${refusal}` };
        }
        return { accepted: true };
      },
      received: async (updates) => {
        const { updates: changes, versions } = await this.facts(project.id, updates);
        await this.run(actor, { type: 'UpdateRefs', project_id: project.id, via: 'push', changes, versions });
      },
    };
  }

  /** Removes the repositories of projects as their deletion is committed (a crash before is swept at start-up). */
  watch(): void {
    if (this.stopWatching) return;
    this.stopWatching = this.app.onCommitted((events) => {
      for (const event of events) {
        if (event.type !== 'ProjectDeleted') continue;
        const id = (event.data as { id: number }).id;
        void this.repositories.remove(id).then((result) => {
          if (E.isLeft(result) && result.left._tag !== 'RepositoryNotFound') this.log({ severity: 'ERROR', message: `removing the repository of project ${id} failed: ${result.left.message}` });
        });
      }
    });
  }

  /** Makes the disk agree with the log (see the file's comment). */
  async reconcile(): Promise<ReconcileReport> {
    const report: ReconcileReport = { created: [], aligned: [], removed: [], failed: [] };
    const repositories = [...listRepositories(this.app.state.repositories)];
    for (const record of repositories) {
      const id = record.project_id;
      if (!(await this.repositories.exists(id))) {
        const created = await this.repositories.create(id, { default_branch: record.default_branch });
        if (E.isLeft(created)) {
          report.failed.push({ project: id, message: created.left.message });
          continue;
        }
        report.created.push(id);
      }
      const wanted = Object.fromEntries(Object.entries(repositoryRefs(record)).filter((entry): entry is [string, Sha] => isSha(entry[1])));
      const aligned = await this.open(id).alignRefs(wanted);
      if (E.isLeft(aligned)) report.failed.push({ project: id, message: aligned.left.message });
      else if (aligned.right.length > 0) report.aligned.push({ project: id, changes: aligned.right });
      const head = await this.open(id).headBranch();
      if (E.isRight(head) && head.right !== record.default_branch) await this.open(id).setHeadBranch(record.default_branch);
    }
    const swept = await this.repositories.sweep(repositories.map((record) => record.project_id));
    if (E.isRight(swept)) report.removed.push(...swept.right);
    else report.failed.push({ project: 0, message: swept.left.message });
    return report;
  }

  /** Failures that cannot reach a client any more (a push whose record failed, and was undone). */
  reportError(what: string, error: unknown): void {
    this.generation++;
    this.log({ severity: 'ERROR', message: `${what} failed: ${error instanceof Error ? error.message : String(error)}` });
  }

  close(): void {
    this.stopWatching?.();
    this.stopWatching = null;
  }
}
