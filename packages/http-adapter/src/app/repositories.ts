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
 * - At start-up, `reconcileInBackground` makes the disk agree with the log after a crash: every project's
 *   repository exists, and gets exactly the refs the log recorded (a crash between a ref move and its event leaves
 *   the move unrecorded, so it is undone), and repositories of deleted projects are removed. It runs while the
 *   server already serves (start-up independent of the number of projects): the projects of the state at its start
 *   are walked one at a time, and any use of a repository not walked yet (`open`, `ready`, a fork of it)
 *   reconciles that one first, so no client sees the difference.
 */
import * as E from 'fp-ts/lib/Either.js';
import {
  BRANCH_PREFIX,
  TAG_PREFIX,
  canPushToBranch,
  findProject,
  findRepository,
  findUser,
  isEmptyRepository,
  listRepositories,
  openMergeRequestsFrom,
  refMoveRefusal,
  REF_CHECK_MESSAGES,
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

/** `BranchCheck#empty_project_push_message` (its heredoc, blank lines included). */
const emptyProjectPushMessage = (project: Project, baseUrl: string): string =>
  `\nA default branch (e.g. main) does not yet exist for ${project.path_with_namespace}\nAsk a project Owner or Maintainer to create a default branch:\n\n  ${baseUrl}/${project.path_with_namespace}/-/project_members\n\n`;

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

const emptyReport = (): ReconcileReport => ({ created: [], aligned: [], removed: [], failed: [] });

/** The background walk gives the event loop a turn at least this often (ms). */
const WALK_SLICE_MS = 5;

/**
 * A repository whose every operation first waits for `ready` (its reconciliation); operations are asynchronous,
 * so a caller cannot tell the difference but for the wait.
 */
const afterReady = (repository: Repository, ready: () => Promise<void>): Repository =>
  new Proxy(repository, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => ready().then(() => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });

/** A reconciliation under way: the state it started from, how far its walk went, and what it did. */
interface Reconciliation {
  /** The repositories of the state when it started: those, and only those, may need reconciling. */
  readonly repositories: State['repositories'];
  /** Every project id up to this one was walked (ids are walked in ascending order). */
  walked: number;
  /** Ids reconciled on demand ahead of the walk. */
  readonly done: Set<number>;
  /** Reconciliations in progress, by project id (the walk's and on-demand ones share them). */
  readonly inFlight: Map<number, Promise<void>>;
  /** Paths of repositories to keep: every project of the start state, and every project created since. */
  readonly keep: Set<string>;
  readonly report: ReconcileReport;
  stopped: boolean;
  unsubscribe: () => void;
  finished: Promise<ReconcileReport>;
}

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

  private reconciliation: Reconciliation | null = null;

  /** The project's repository; one not reconciled yet since start-up is reconciled before its first operation. */
  open(projectId: number): Repository {
    const repository = this.repositories.open(projectId);
    return this.pending(projectId) ? afterReady(repository, () => this.ready(projectId)) : repository;
  }

  /** Resolves once the project's repository agrees with the log (at once, unless start-up has not reached it). */
  ready(projectId: number): Promise<void> {
    const run = this.reconciliation;
    if (run === null) return Promise.resolve();
    const inFlight = run.inFlight.get(projectId);
    if (inFlight) return inFlight;
    if (!this.pending(projectId)) return Promise.resolve();
    return this.reconcileOne(run, projectId);
  }

  /** True while the project's repository may still disagree with the log (start-up has not reconciled it yet). */
  private pending(projectId: number): boolean {
    const run = this.reconciliation;
    return run !== null && projectId > run.walked && !run.done.has(projectId) && findRepository(run.repositories, projectId) !== undefined;
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
    // `create_readme` ignores a refused commit (a Developer, say, under a protected default branch): no README then.
    const project = findProject(this.app.state.projects, projectId);
    if (actor.userId !== null && project && !canPushToBranch(this.app.state, actor.userId, project, repository, repository.default_branch)) return;
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
    await this.ready(sourceId);
    const copied = await this.repositories.copyRefs(
      projectId,
      sourceId,
      this.recorder(projectId, actor, (changes, versions) => ({ type: 'UpdateRefs', project_id: projectId, via: 'api', changes, versions, imported: true })),
    );
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
    // Creating the default branch moved HEAD in the log (`change_head`): git follows before the write lets go of the
    // repository's lock, and answers cached meanwhile (the log moved first) are dropped. Start-up aligns HEAD too.
    for (const event of result.right.events) {
      if (event.type !== 'DefaultBranchChanged') continue;
      const { project_id: projectId, default_branch: branch } = event.data as { project_id: number; default_branch: string };
      const set = await this.open(projectId).setHeadBranch(branch, { heldLock: true });
      if (E.isLeft(set)) this.log({ severity: 'ERROR', message: `moving HEAD of project ${projectId} to ${branch} failed: ${set.left.message}` });
      this.generation++;
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
  pushHandlers(project: Project, actor: Actor, baseUrl: string): PushHandlers {
    return {
      check: async (updates, context) => {
        const state = this.app.state;
        const repository = findRepository(state.repositories, project.id);
        const current = findProject(state.projects, project.id);
        if (!repository || !current) return { accepted: false, message: 'GitLab: The project you were looking for could not be found.' };
        for (const update of updates) {
          const forced = update.ref.startsWith(BRANCH_PREFIX) && update.oldSha !== null && update.newSha !== null && !(await context.isAncestor(update.oldSha, update.newSha));
          const refusal = refMoveRefusal(state, actor.userId, current, repository, { ref: update.ref, old_sha: update.oldSha, new_sha: update.newSha, forced }, 'push');
          // `push_to_protected_branch_rejected_message`: into an empty repository, it says how to get a first branch.
          const shown = refusal === REF_CHECK_MESSAGES.push_protected_branch && isEmptyRepository(repository) ? emptyProjectPushMessage(current, baseUrl) : refusal;
          if (shown) return { accepted: false, message: `GitLab: ${shown}` };
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

  /**
   * Starts making the disk agree with the log while the server serves; answers the report once done (a second call
   * answers the same). The walk takes the projects one at a time in ascending id order and gives the event loop a
   * turn every few milliseconds; a repository used before the walk reached it is reconciled then (`ready`).
   * Repositories of projects created meanwhile are new, so they need nothing; the sweep of orphans comes last,
   * keeping every project of the start state and every project created since.
   */
  reconcileInBackground(): Promise<ReconcileReport> {
    if (this.reconciliation) return this.reconciliation.finished;
    // Subscribed before the state is read: a project created after that read is seen here.
    const keep = new Set<string>();
    const unsubscribe = this.app.onCommitted((events) => {
      for (const event of events) if (event.type === 'ProjectCreated') keep.add(this.repositories.pathOf((event.data as { id: number }).id));
    });
    const run: Reconciliation = {
      repositories: this.app.state.repositories,
      walked: 0,
      done: new Set(),
      inFlight: new Map(),
      keep,
      report: emptyReport(),
      stopped: false,
      unsubscribe,
      finished: Promise.resolve(emptyReport()),
    };
    this.reconciliation = run;
    run.finished = this.walk(run);
    return run.finished;
  }

  private async walk(run: Reconciliation): Promise<ReconcileReport> {
    // Started on a later turn: the caller goes on (to listen) first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    let sliceStart = performance.now();
    try {
      for (const record of listRepositories(run.repositories)) {
        if (run.stopped) return run.report;
        const id = record.project_id;
        run.keep.add(this.repositories.pathOf(id));
        if (!run.done.has(id)) await (run.inFlight.get(id) ?? this.reconcileOne(run, id));
        run.walked = id;
        run.done.delete(id);
        if (performance.now() - sliceStart > WALK_SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
      }
      if (run.stopped) return run.report;
      const swept = await this.repositories.sweep((path) => run.keep.has(path));
      if (E.isRight(swept)) run.report.removed.push(...swept.right);
      else run.report.failed.push({ project: 0, message: swept.left.message });
      return run.report;
    } finally {
      run.unsubscribe();
      // Done (or stopped): nothing is pending any more.
      if (this.reconciliation === run && !run.stopped) this.reconciliation = null;
    }
  }

  /** Reconciles one project's repository against the log as it is now (a project deleted since needs nothing). */
  private reconcileOne(run: Reconciliation, id: number): Promise<void> {
    const work = (async () => {
      const record = findRepository(this.app.state.repositories, id);
      if (!record) return;
      const report = run.report;
      if (!(await this.repositories.exists(id))) {
        const created = await this.repositories.create(id, { default_branch: record.default_branch });
        if (E.isLeft(created)) {
          report.failed.push({ project: id, message: created.left.message });
          return;
        }
        // Deleted while it was being created (a deletion's removal may have run before the creation): gone again.
        if (!findRepository(this.app.state.repositories, id)) {
          await this.repositories.remove(id);
          return;
        }
        report.created.push(id);
      }
      const repository = this.repositories.open(id);
      const wanted = Object.fromEntries(Object.entries(repositoryRefs(record)).filter((entry): entry is [string, Sha] => isSha(entry[1])));
      const aligned = await repository.alignRefs(wanted);
      if (E.isLeft(aligned)) report.failed.push({ project: id, message: aligned.left.message });
      else if (aligned.right.length > 0) report.aligned.push({ project: id, changes: aligned.right });
      const head = await repository.headBranch();
      if (E.isRight(head) && head.right !== record.default_branch) await repository.setHeadBranch(record.default_branch);
    })().catch((error: unknown) => {
      // Never a rejection: the walk goes on, and the request that waited uses the repository as it is.
      run.report.failed.push({ project: id, message: error instanceof Error ? error.message : String(error) });
    });
    // Marked done in the same step as it leaves `inFlight`: no turn in between sees it pending with nothing in flight.
    const tracked = work.finally(() => {
      run.inFlight.delete(id);
      run.done.add(id);
    });
    run.inFlight.set(id, tracked);
    return tracked;
  }

  /** Stops a background reconciliation (what it did not reach is reconciled at the next start). */
  async stopReconciling(): Promise<void> {
    const run = this.reconciliation;
    if (!run) return;
    run.stopped = true;
    await Promise.all([run.finished, ...run.inFlight.values()]);
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
