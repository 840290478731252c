/**
 * A one-line progress bar on stderr for long runs (events done / total, rate, ETA). It draws only when the
 * stream is a TTY: in CI logs and pipes it writes nothing at all.
 */

export interface ProgressStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface Progress {
  /** Reports `done` of `total` units; redraws at most every `intervalMs`. */
  update(done: number, total: number): void;
  /** Erases the bar (the stream is left as it was before the first draw). */
  finish(): void;
}

export interface ProgressOptions {
  readonly now?: () => number;
  readonly intervalMs?: number;
  readonly unit?: string;
}

const silent: Progress = { update: () => undefined, finish: () => undefined };

const formatCount = (value: number): string => Math.round(value).toLocaleString('en-US');

export const formatDuration = (seconds: number): string => {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--';
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, '0');
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
};

export const createProgress = (label: string, stream: ProgressStream, options: ProgressOptions = {}): Progress => {
  if (stream.isTTY !== true) return silent;
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? 100;
  const unit = options.unit ?? 'events';
  const started = now();
  let lastDraw = -Infinity;
  let drawn = false;
  return {
    update(done, total) {
      const time = now();
      if (time - lastDraw < interval && done < total) return;
      lastDraw = time;
      const elapsed = (time - started) / 1000;
      const rate = elapsed > 0 ? done / elapsed : 0;
      const fraction = total > 0 ? Math.min(1, done / total) : 1;
      const eta = rate > 0 ? (total - done) / rate : Number.NaN;
      const text = ` ${(fraction * 100).toFixed(1).padStart(5)}% ${formatCount(done)}/${formatCount(total)} ${unit}  ${formatCount(rate)}/s  ETA ${formatDuration(eta)}`;
      const columns = stream.columns && stream.columns > 0 ? stream.columns : 80;
      const barWidth = Math.max(10, Math.min(40, columns - label.length - text.length - 4));
      const filled = Math.round(fraction * barWidth);
      const line = `${label} [${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]${text}`;
      stream.write(`\r\x1b[2K${line.slice(0, Math.max(0, columns - 1))}`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
};
