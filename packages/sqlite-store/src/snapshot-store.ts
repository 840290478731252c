/**
 * Snapshots of the projections, in the core's snapshot format (`encodeState`), with the log position they reflect.
 * Only the newest few of each projection version are kept; snapshots of other projection versions are pruned as well.
 *
 * Taking a snapshot of a large state stays off the request path: the state (an immutable committed reference) is
 * encoded a piece at a time, yielding to the event loop between pieces, and each piece is handed (transferred, not
 * copied) to a worker thread with its own connection, which writes them as rows of 64 KiB (see ROW), so that neither
 * serialising nor writing holds the event loop. The snapshots live in a file of their own (`snapshotsPathOf`): the
 * worker's transactions never take the write lock the event store's commits need. A snapshot counts once its last
 * piece is in (`pieces` ≥ 0). Stores on `:memory:` (no second connection) write in-thread. A snapshot copies, rather
 * than serialises, the nodes of the one the state was loaded from that are still unread, and those of the previous
 * one this store wrote that are still the same objects (incremental snapshots: see `NodeRuns` in the core); the rows
 * such a run covers whole are not copied but referenced (`REFERENCE`): the worker writes only the rows of bytes that
 * changed, and the parts of rows at a run's ends.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { decodeState, encodePieces, encodeState, NodeRuns, readAcross, type Snapshot, type SnapshotBytes, type SnapshotStore } from '@forgefold/core';

const KEEP = 3;

/**
 * Rows to remove once a snapshot is complete: older unfinished ones, and the complete ones beyond the newest KEEP,
 * except the one this process loaded its state from (`@pinned`) and those other processes loaded theirs from
 * (`snapshot_readers`): their pieces are read on demand (`Pieces` below).
 */
const DOOMED = `
  SELECT id FROM shared_snapshots WHERE pieces < 0 AND id < @id
  UNION SELECT id FROM shared_snapshots WHERE pieces >= 0 AND projection_version = @version AND id <> @pinned AND id NOT IN (SELECT snapshot_id FROM snapshot_readers) AND id NOT IN
    (SELECT id FROM shared_snapshots WHERE pieces >= 0 AND projection_version = @version ORDER BY position DESC, id DESC LIMIT ${KEEP})
  UNION SELECT id FROM shared_snapshots WHERE pieces >= 0 AND projection_version <> @version AND id <> @pinned AND id NOT IN (SELECT snapshot_id FROM snapshot_readers) AND id NOT IN
    (SELECT id FROM shared_snapshots WHERE pieces >= 0 ORDER BY id DESC LIMIT ${KEEP})`;

/**
 * A row's bytes (or their length): its own, or those of the row of an older snapshot it references (always a row
 * that holds them: see `REFERENCE`). Reading a referencing row's source_id, or a row with bytes' NULL one, does not
 * read the blob's overflow pages (a column of no bytes is known from the record's header).
 */
const resolved = (column: 'bytes' | 'length(bytes)'): string =>
  `CASE WHEN p.source_id IS NULL THEN ${column.replace('bytes', 'p.bytes')} ELSE (SELECT ${column.replace('bytes', 's.bytes')} FROM shared_snapshot_pieces s WHERE s.snapshot_id = p.source_id AND s.seq = p.source_seq) END`;
const PIECE_LENGTHS = `SELECT ${resolved('length(bytes)')} FROM shared_snapshot_pieces p WHERE p.snapshot_id = ? ORDER BY p.seq`;
const PIECE = `SELECT ${resolved('bytes')} FROM shared_snapshot_pieces p WHERE p.snapshot_id = ? AND p.seq = ?`;

/**
 * A row of the snapshot being written that references row (@snapshot, @seq) of an older one, resolved when written
 * to the row that holds the bytes (references never chain); nothing is inserted when that row is gone.
 */
const REFERENCE = `INSERT INTO shared_snapshot_pieces (snapshot_id, seq, bytes, source_id, source_seq)
  SELECT @row, @at, X'', coalesce(source_id, snapshot_id), coalesce(source_seq, seq) FROM shared_snapshot_pieces WHERE snapshot_id = @snapshot AND seq = @seq`;

/**
 * Pruning a snapshot (in its order: the snapshots its rows reference, then the snapshot, its references, and the
 * rows with bytes of it and of those no other row references any more). A row with bytes that a kept snapshot
 * (or one being written) references stays after its own snapshot is gone, until the last such reference goes.
 */
const PRUNE = {
  sources: 'SELECT DISTINCT source_id FROM shared_snapshot_pieces WHERE snapshot_id = ? AND source_id IS NOT NULL',
  row: 'DELETE FROM shared_snapshots WHERE id = ?',
  references: 'DELETE FROM shared_snapshot_pieces WHERE snapshot_id = ? AND source_id IS NOT NULL',
  unreferenced: `DELETE FROM shared_snapshot_pieces WHERE snapshot_id = @id AND NOT EXISTS (SELECT 1 FROM shared_snapshots WHERE id = @id)
    AND NOT EXISTS (SELECT 1 FROM shared_snapshot_pieces r WHERE r.source_id = shared_snapshot_pieces.snapshot_id AND r.source_seq = shared_snapshot_pieces.seq)`,
};

interface Prune {
  readonly sources: Database.Statement<[number], number>;
  readonly row: Database.Statement<[number]>;
  readonly references: Database.Statement<[number]>;
  readonly unreferenced: Database.Statement<[{ id: number }]>;
}

/** Also the worker's (its source embeds this function's text: one definition for both threads). */
const pruneOne = (statements: Prune, id: number): void => {
  const sources = statements.sources.all(id);
  statements.row.run(id);
  statements.references.run(id);
  for (const snapshot of [id, ...sources]) statements.unreferenced.run({ id: snapshot });
};

/**
 * Bytes per stored piece. A table node is read with its piece when first used (SQLite reads a blob whole, walking
 * its overflow pages), so pieces are small: 64 KiB is read in about a millisecond here, a MiB took 5–16 ms.
 */
const ROW = 64 * 1024;

/**
 * The shortest row written before a reference to an older snapshot's rows (the rest of the bytes before it: see the
 * worker's copy). Rows are then ROW to ROW + SHORTEST bytes long, but for the last of a snapshot.
 */
const SHORTEST = ROW / 4;

/** References written per transaction of the worker (a row each, a few bytes). */
const REFERENCES_PER_TRANSACTION = 256;

/**
 * The event loop's time a snapshot's encoding takes in one turn (its steps are far shorter: see STEP_WORK in the
 * core), before requests run again. Timed here, not counted by the core (which reads no clock).
 */
const SLICE_MS = 4;

/** A turn of the event loop shorter than this found nothing to do (no request waiting): the encoder goes on. */
const IDLE_TURN_MS = 0.5;

/**
 * Whether the encoder, `awayMs` after its last slice (which took `sliceMs`) and a turn of the event loop that took
 * `turnMs`, yields one more turn. Under load it leaves the loop at least as long as its slice took, i.e. at most half
 * of the main thread: a forced snapshot under steady writes took ~75% of it for ~0.6 s, and every request in that
 * window was ~4x slower (docs/decisions.md, "Write latency, ninth round"). An idle turn ends the wait at once, so a
 * snapshot with no load runs as fast as before.
 */
export const yieldsAgain = (sliceMs: number, awayMs: number, turnMs: number): boolean => turnMs >= IDLE_TURN_MS && awayMs < sliceMs;

/** Pieces kept in memory once read: a snapshot taken later reads them in order. */
const CACHED_PIECES = 256;

/**
 * A stored snapshot's bytes, read a piece at a time when first needed: start-up reads its structure (the last
 * pieces), and a table node's piece when the node is first read (see LazyNode in the core).
 */
class StoredPieces implements SnapshotBytes {
  private known: { readonly starts: number[]; readonly size: number } | null = null;
  private readonly cache = new Map<number, Buffer>();

  constructor(
    readonly db: Database.Database,
    private readonly piece: Database.Statement<[number, number], Buffer>,
    readonly id: number,
    /** The pieces' lengths, asked for when first needed (a snapshot only copied from by the worker never is). */
    private readonly lengths: () => readonly (number | null)[],
  ) {}

  private get layout(): { readonly starts: number[]; readonly size: number } {
    if (this.known) return this.known;
    const starts: number[] = [];
    let size = 0;
    for (const length of this.lengths()) {
      if (length === null) throw new Error(`Snapshot ${this.id} cannot be read: a row it references is gone`);
      starts.push(size);
      size += length;
    }
    return (this.known = { starts, size });
  }

  get size(): number {
    return this.layout.size;
  }

  read(offset: number, length: number): Buffer {
    return readAcross(this.layout.starts, (seq) => this.pieceAt(seq), offset, length);
  }

  private pieceAt(seq: number): Buffer {
    const cached = this.cache.get(seq);
    if (cached) {
      // Most recently used last.
      this.cache.delete(seq);
      this.cache.set(seq, cached);
      return cached;
    }
    if (!this.db.open) throw new Error(`Snapshot ${this.id} cannot be read: its store is closed`);
    const bytes = this.piece.get(this.id, seq);
    if (!bytes) throw new Error(`Snapshot ${this.id} cannot be read: its piece ${seq} is gone`);
    this.cache.set(seq, bytes);
    if (this.cache.size > CACHED_PIECES) this.cache.delete(this.cache.keys().next().value!);
    return bytes;
  }
}

const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
const begin = db.prepare('INSERT INTO shared_snapshots (projection_version, position, state, taken_at, pieces, last_event_id) VALUES (?, ?, ?, ?, -1, ?)');
const addPiece = db.prepare('INSERT INTO shared_snapshot_pieces (snapshot_id, seq, bytes) VALUES (?, ?, ?)');
const addReference = db.prepare(workerData.reference);
const complete = db.prepare('UPDATE shared_snapshots SET pieces = ? WHERE id = ?');
const doomed = db.prepare(workerData.doomed).pluck();
const prune = {
  sources: db.prepare(workerData.prune.sources).pluck(),
  row: db.prepare(workerData.prune.row),
  references: db.prepare(workerData.prune.references),
  unreferenced: db.prepare(workerData.prune.unreferenced),
};
// One snapshot per transaction (see PRUNE).
const pruneSteps = ${pruneOne.toString()};
const pruneOne = db.transaction((id) => pruneSteps(prune, id));
const jobs = new Map();
// Rows of ROW bytes: a table node is read on demand with its row (SQLite reads a blob whole), so rows stay small.
// One row per transaction: the file's write lock is taken briefly (by another process's snapshot worker, say, or
// this process's list of readers). Only whole rows until the end, or until a reference follows (then the rest).
const addRow = db.transaction((job, bytes) => addPiece.run(job.row, job.seq++, bytes));
const flush = (job, all) => {
  if (job.size < workerData.row && !(all && job.size > 0)) return;
  const bytes = Buffer.concat(job.batch);
  let at = 0;
  for (; bytes.length - at >= workerData.row || (all && at < bytes.length); at += workerData.row) addRow(job, bytes.subarray(at, at + workerData.row));
  // (With all, the last row is shorter and at passes the end.)
  job.batch = at < bytes.length ? [bytes.subarray(at)] : [];
  job.size = Math.max(0, bytes.length - at);
};
// Before references: what is buffered, as rows of ROW and a last one of at least SHORTEST (see copy).
const settle = (job) => {
  if (job.size === 0) return;
  const bytes = Buffer.concat(job.batch);
  let at = 0;
  for (; bytes.length - at >= workerData.row + workerData.shortest; at += workerData.row) addRow(job, bytes.subarray(at, at + workerData.row));
  addRow(job, bytes.subarray(at));
  job.batch = [];
  job.size = 0;
};
// References to rows from..to of a snapshot, a few hundred per transaction (each is a few bytes).
const addReferences = db.transaction((job, snapshot, from, to) => {
  for (let seq = from; seq <= to; seq++) {
    if (addReference.run({ row: job.row, at: job.seq, snapshot, seq }).changes !== 1) throw new Error('Snapshot ' + snapshot + ' cannot be read: its piece ' + seq + ' is gone');
    job.seq++;
  }
});
const lengths = db.prepare(workerData.pieceLengths).pluck();
const readPiece = db.prepare(workerData.piece).pluck();
// Where each row of a snapshot copied from starts, and where the last one ends.
const layoutOf = new Map();
const layout = (snapshot) => {
  let known = layoutOf.get(snapshot);
  if (!known) {
    const starts = [];
    let size = 0;
    for (const length of lengths.all(snapshot)) {
      if (length === null) throw new Error('Snapshot ' + snapshot + ' cannot be read: a row it references is gone');
      starts.push(size);
      size += length;
    }
    known = { starts, size };
    layoutOf.set(snapshot, known);
  }
  return known;
};
// Bytes of an earlier snapshot: the rows the run covers whole are referenced (the rows of this snapshot before them
// are written first), the parts of rows at its ends copied as they are read. A row is never cut shorter than
// SHORTEST before a reference: a later snapshot references it as it is, so short rows would pile up, one more
// around each change of each snapshot; the next whole row's bytes join it instead.
const copy = (job, snapshot, offset, length) => {
  const { starts, size } = layout(snapshot);
  const end = offset + length;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  const endOf = (seq) => (seq + 1 < starts.length ? starts[seq + 1] : size);
  let at = offset;
  for (let seq = lo; at < end; ) {
    if (at === starts[seq] && endOf(seq) <= end && !(job.size > 0 && job.size < workerData.shortest)) {
      let last = seq;
      while (last + 1 < starts.length && endOf(last + 1) <= end) last++;
      settle(job);
      for (let from = seq; from <= last; from += workerData.referencesPerTransaction) addReferences(job, snapshot, from, Math.min(last, from + workerData.referencesPerTransaction - 1));
      at = endOf(last);
      seq = last + 1;
      continue;
    }
    const bytes = readPiece.get(snapshot, seq);
    if (!bytes) throw new Error('Snapshot ' + snapshot + ' cannot be read: its piece ' + seq + ' is gone');
    const part = bytes.subarray(at - starts[seq], Math.min(bytes.length, end - starts[seq]));
    job.batch.push(part);
    job.size += part.length;
    at += part.length;
    seq++;
    // (Not while joining a short row to the whole one after it: cut at ROW, it could be short again.)
    if (at < end && at === starts[seq] && endOf(seq) <= end && job.size >= workerData.shortest) continue;
    flush(job, false);
  }
};
// Consecutive copies of one run (the encoder hands a long run out in parts) are taken as one, so that it covers rows whole.
const copyPending = (job) => {
  const run = job.pending;
  if (!run) return;
  job.pending = null;
  copy(job, run.snapshot, run.offset, run.length);
};
parentPort.on('message', (message) => {
  const { id } = message;
  try {
    if (message.type === 'begin') {
      const row = Number(begin.run(message.projectionVersion, message.position, Buffer.alloc(0), message.takenAt, message.lastEventId).lastInsertRowid);
      jobs.set(id, { row, seq: 0, batch: [], size: 0, pending: null });
    } else if (message.type === 'piece') {
      const job = jobs.get(id);
      if (!job) return;
      copyPending(job);
      job.batch.push(Buffer.from(message.piece));
      job.size += message.piece.byteLength;
      flush(job, false);
    } else if (message.type === 'copy') {
      const job = jobs.get(id);
      if (!job) return;
      const run = job.pending;
      if (run && run.snapshot === message.snapshot && run.offset + run.length === message.offset) run.length += message.length;
      else {
        copyPending(job);
        job.pending = { snapshot: message.snapshot, offset: message.offset, length: message.length };
      }
    } else if (message.type === 'end') {
      const job = jobs.get(id);
      jobs.delete(id);
      copyPending(job);
      flush(job, true);
      complete.run(job.seq, job.row);
      // Pruning: in the snapshot file, whose write lock no commit waits for.
      for (const old of doomed.all({ id: job.row, version: message.projectionVersion, pinned: message.pinned })) pruneOne(old);
      layoutOf.clear();
      parentPort.postMessage({ type: 'saved', id, row: job.row });
    } else if (message.type === 'close') {
      db.close();
      parentPort.close();
    }
  } catch (error) {
    jobs.delete(id);
    parentPort.postMessage({ type: 'failed', id, message: String((error && error.message) || error) });
  }
});
`;

/** Stores of this process reading each file's snapshot on demand: the process's row goes when the last one closes. */
const readersHere = new Map<string, number>();

export class SqliteSnapshotStore implements SnapshotStore {
  private readonly newest: Database.Statement<[string], { id: number; position: number; projection_version: string; state: Buffer; taken_at: string; pieces: number; last_event_id: string | null }>;
  private readonly pieceLengths: Database.Statement<[number], number | null>;
  private readonly piece: Database.Statement<[number, number], Buffer>;
  /** The table of the snapshots: that of schema 2, or of schema 1 in a file read (read-only) before its migration. */
  private readonly snapshots: 'shared_snapshots' | 'snapshots';
  /** The snapshot this store loaded a state from (read on demand, so never pruned by this process), or -1. */
  private pinned = -1;
  private readonly saveTx: Database.Transaction<(snapshot: Snapshot, state: Buffer) => void> | null;
  private worker: Worker | null = null;
  private jobs = 0;
  private readonly waiting = new Map<number, { resolve: (row: number) => void; reject: (error: Error) => void }>();
  /**
   * The newest snapshot this store wrote from this process and the table nodes it holds (objects of the committed
   * state it was taken of): the next snapshot copies those still in its state from there (see `NodeRuns` in the
   * core). Forgotten when a save fails (the snapshot may be gone: the next one is written whole).
   */
  private previous: { readonly source: StoredPieces; readonly runs: NodeRuns } | null = null;
  private closing = false;

  constructor(
    private readonly db: Database.Database,
    private readonly readonly = false,
    /** The file, when a worker may open it too (not for `:memory:`). */
    private readonly path: string | null = null,
    /**
     * The id of the event at a position of the log the snapshots are of (null past its head): a snapshot is loaded
     * only where it matches (a snapshot file beside a restored or replaced event database is not that log's).
     */
    private readonly eventIdAt: (position: number) => string | null = () => null,
  ) {
    // A file read (read-only) before its snapshot migration 2 holds its snapshots in the tables of schema 1, without
    // references; an event database read before its migration 4 holds them too, without last_event_id.
    const shares = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'shared_snapshots'").get() !== undefined;
    this.snapshots = shares ? 'shared_snapshots' : 'snapshots';
    const recordsLastEvent = db.prepare(`SELECT 1 FROM pragma_table_info('${this.snapshots}') WHERE name = 'last_event_id'`).get() !== undefined;
    this.newest = db.prepare(
      `SELECT id, position, projection_version, state, taken_at, pieces, ${recordsLastEvent ? 'last_event_id' : 'NULL AS last_event_id'} FROM ${this.snapshots} WHERE projection_version = ? AND pieces >= 0 ORDER BY position DESC, id DESC`,
    );
    // length() of a blob reads its record's header, not its overflow pages.
    this.pieceLengths = db.prepare<[number], number | null>(shares ? PIECE_LENGTHS : 'SELECT length(bytes) FROM snapshot_pieces WHERE snapshot_id = ? ORDER BY seq').pluck();
    this.piece = db.prepare<[number, number], Buffer>(shares ? PIECE : 'SELECT bytes FROM snapshot_pieces WHERE snapshot_id = ? AND seq = ?').pluck();
    if (readonly) {
      this.saveTx = null;
      return;
    }
    const insert = db.prepare<[string, number, Buffer, string, string | null]>('INSERT INTO shared_snapshots (projection_version, position, state, taken_at, pieces, last_event_id) VALUES (?, ?, ?, ?, 0, ?)');
    const doomed = db.prepare<[{ id: number; version: string; pinned: number }], number>(DOOMED).pluck();
    const prune: Prune = {
      sources: db.prepare<[number], number>(PRUNE.sources).pluck(),
      row: db.prepare<[number]>(PRUNE.row),
      references: db.prepare<[number]>(PRUNE.references),
      unreferenced: db.prepare<[{ id: number }]>(PRUNE.unreferenced),
    };
    this.saveTx = db.transaction((snapshot: Snapshot, state: Buffer) => {
      const id = Number(insert.run(snapshot.projectionVersion, snapshot.position, state, snapshot.takenAt, this.eventIdAt(snapshot.position)).lastInsertRowid);
      for (const old of doomed.all({ id, version: snapshot.projectionVersion, pinned: this.pinned })) pruneOne(prune, old);
    });
  }

  async save(snapshot: Snapshot): Promise<void> {
    // A save asked for once `close` has begun (an application's timer) would go to a worker told to stop.
    if (!this.db.open || this.closing) throw new Error('The snapshot store is closed');
    if (!this.saveTx) throw new Error('The store was opened read-only');
    if (this.path === null) {
      this.saveTx.immediate(snapshot, Buffer.concat([...encodeState(snapshot.state)]));
      return;
    }
    const worker = this.ensureWorker();
    const id = ++this.jobs;
    const saved = new Promise<number>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    // The worker may fail while this thread still encodes: the rejection is awaited below, not unhandled meanwhile.
    saved.catch(() => undefined);
    // An idle worker must not keep the process alive, but one writing a snapshot must: a process whose only
    // pending work is an unreferenced worker's reply exits mid-await (code 13 under a top-level await).
    worker.ref();
    worker.postMessage({ type: 'begin', id, projectionVersion: snapshot.projectionVersion, position: snapshot.position, takenAt: snapshot.takenAt, lastEventId: this.eventIdAt(snapshot.position) });
    // Nodes not read since the state was loaded from this store's pinned snapshot are copied by the worker, from there.
    const copies = (source: SnapshotBytes): boolean => source instanceof StoredPieces && source.db === this.db && source.id === this.pinned;
    // Nodes the previous snapshot written here holds are copied from there; it stays until this one is complete
    // (pruning runs after), being among the newest.
    const runs = new NodeRuns();
    const previous = this.previous;
    const pieces = encodePieces(snapshot.state, copies, previous ? { previous, runs } : { runs });
    // Requests run between slices of steps: as many steps (a piece of serialised nodes, or a bounded span of
    // structure: see STEP_WORK) as fit in SLICE_MS, then turns of the event loop (see yieldsAgain).
    let sliceStarted = performance.now();
    for (const piece of pieces) {
      // Each piece sits on an ArrayBuffer of its own: handed over, not copied. An empty one is a step of structure.
      if (!Buffer.isBuffer(piece)) worker.postMessage({ type: 'copy', id, snapshot: (piece.source as StoredPieces).id, offset: piece.offset, length: piece.length });
      else if (piece.length > 0) worker.postMessage({ type: 'piece', id, piece: piece.buffer }, [piece.buffer as ArrayBuffer]);
      const sliceEnded = performance.now();
      if (sliceEnded - sliceStarted < SLICE_MS) continue;
      for (;;) {
        const turnStarted = performance.now();
        await new Promise<void>((resolve) => setImmediate(resolve));
        const now = performance.now();
        if (!yieldsAgain(sliceEnded - sliceStarted, now - sliceEnded, now - turnStarted)) break;
      }
      sliceStarted = performance.now();
    }
    worker.postMessage({ type: 'end', id, projectionVersion: snapshot.projectionVersion, pinned: this.pinned });
    try {
      const row = await saved;
      this.previous = { source: this.storedPieces(row), runs };
    } catch (error) {
      this.previous = null;
      throw error;
    } finally {
      if (this.waiting.size === 0 && this.worker === worker) worker.unref();
    }
  }

  /** Snapshot `id` of this store's file, read a piece at a time. */
  private storedPieces(id: number): StoredPieces {
    return new StoredPieces(this.db, this.piece, id, () => this.pieceLengths.all(id));
  }

  /** The next snapshot is written whole (every node serialised again or copied from the pinned one), as before incremental snapshots: the bench's baseline. */
  forgetPrevious(): void {
    this.previous = null;
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        driver,
        path: this.path,
        doomed: DOOMED,
        prune: PRUNE,
        reference: REFERENCE,
        pieceLengths: PIECE_LENGTHS,
        piece: PIECE,
        row: ROW,
        shortest: SHORTEST,
        referencesPerTransaction: REFERENCES_PER_TRANSACTION,
      },
    });
    worker.unref();
    worker.on('message', (message: { type: string; id: number; row?: number; message?: string }) => {
      const waiter = this.waiting.get(message.id);
      if (!waiter) return;
      this.waiting.delete(message.id);
      if (message.type === 'saved') waiter.resolve(message.row!);
      else waiter.reject(new Error(`Snapshot not saved: ${message.message ?? 'unknown error'}`));
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('The snapshot worker stopped')));
    this.worker = worker;
    return worker;
  }

  /** How many snapshots the file holds (all projection versions, complete ones). */
  count(): number {
    return this.db.prepare<[], number>(`SELECT count(*) FROM ${this.snapshots} WHERE pieces >= 0`).pluck().get() ?? 0;
  }

  async load(projectionVersion: string): Promise<Snapshot | null> {
    if (!this.db.open) throw new Error('The snapshot store is closed');
    let row: ReturnType<typeof this.newest.get>;
    for (const candidate of this.newest.iterate(projectionVersion)) {
      if (this.belongsToLog(candidate.position, candidate.last_event_id)) {
        row = candidate;
        break;
      }
    }
    if (!row) return null;
    // Hundreds of MB at 1e6 commands: start-up reads the snapshot's structure, and each table node's piece when the
    // node is first read (see LazyNode); the snapshot is kept for as long as this store lives.
    if (row.pieces > 0) this.pin(row.id);
    const bytes = row.pieces > 0 ? this.storedPieces(row.id) : row.state;
    return { position: row.position, projectionVersion: row.projection_version, state: decodeState(bytes, { lazy: true }), takenAt: row.taken_at };
  }

  /**
   * A snapshot of this log: one that recorded the event at its position is loaded only where the log has that event
   * there (a server's snapshots always record it; one saved at a position the log did not have, by a direct use of
   * the store, recorded none and is loaded as it is).
   */
  private belongsToLog(position: number, lastEventId: string | null): boolean {
    return lastEventId === null || lastEventId === this.eventIdAt(position);
  }

  /**
   * Names the snapshot this process reads on demand, for other processes' pruning; forgets the names of processes
   * that are gone (a crash leaves its row behind). A read-only store cannot write it: it is short-lived.
   */
  private pin(id: number): void {
    this.pinned = id;
    if (this.readonly) return;
    readersHere.set(this.readerKey(), (readersHere.get(this.readerKey()) ?? 0) + 1);
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM';
      }
    };
    this.db.transaction(() => {
      const readers = this.db.prepare<[], number>('SELECT DISTINCT pid FROM snapshot_readers').pluck().all();
      const forget = this.db.prepare<[number]>('DELETE FROM snapshot_readers WHERE pid = ?');
      for (const pid of readers) if (pid !== process.pid && !alive(pid)) forget.run(pid);
      this.db.prepare<[number, number]>('INSERT OR IGNORE INTO snapshot_readers (snapshot_id, pid) VALUES (?, ?)').run(id, process.pid);
    }).immediate();
  }

  private readerKey(): string {
    return `${this.db.name}\0${this.pinned}`;
  }

  /** Stops the worker once the snapshots in flight are written, and lets other processes prune what this one read. */
  async close(): Promise<void> {
    this.closing = true;
    this.previous = null;
    if (this.pinned !== -1 && !this.readonly && this.db.open) {
      const key = this.readerKey();
      const left = (readersHere.get(key) ?? 1) - 1;
      if (left > 0) readersHere.set(key, left);
      else {
        readersHere.delete(key);
        this.db.prepare<[number, number]>('DELETE FROM snapshot_readers WHERE snapshot_id = ? AND pid = ?').run(this.pinned, process.pid);
      }
      this.pinned = -1;
    }
    const worker = this.worker;
    if (!worker) return;
    await Promise.allSettled([...this.waiting.values()].map((waiter) => new Promise<void>((resolve) => {
      const { resolve: done, reject } = waiter;
      waiter.resolve = (row) => { done(row); resolve(); };
      waiter.reject = (error) => { reject(error); resolve(); };
    })));
    this.worker = null;
    await new Promise<void>((resolve) => {
      worker.ref();
      worker.once('exit', () => resolve());
      worker.postMessage({ type: 'close' });
    });
  }
}
