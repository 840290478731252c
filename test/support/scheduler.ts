/** A `Scheduler` a test drives: `tick(ms)` runs every task whose interval has elapsed; `settled()` waits for their runs. */
import type { Scheduler } from '@forgefold/core';

export interface ManualScheduler {
  readonly scheduler: Scheduler;
  /** Moves the scheduler's time forward, running each task once per elapsed interval. */
  tick(ms: number): void;
  /** Resolves when every run started by a tick has finished. */
  settled(): Promise<void>;
}

export const manualScheduler = (): ManualScheduler => {
  let now = 0;
  const tasks: { every: number; next: number; task: () => void | Promise<void> }[] = [];
  let running: Promise<unknown>[] = [];
  const scheduler: Scheduler = {
    every: (every, task) => {
      const entry = { every, next: now + every, task };
      tasks.push(entry);
      return () => void tasks.splice(tasks.indexOf(entry), 1);
    },
  };
  const tick = (ms: number) => {
    now += ms;
    for (const entry of tasks) {
      while (entry.next <= now) {
        entry.next += entry.every;
        const run = entry.task();
        if (run) running.push(run);
      }
    }
  };
  const settled = async () => {
    while (running.length > 0) {
      const batch = running;
      running = [];
      await Promise.all(batch);
    }
  };
  return { scheduler, tick, settled };
};
