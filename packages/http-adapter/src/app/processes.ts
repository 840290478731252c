/**
 * The modules' background processes (membership expiry), run as the system when due, before a request that reads
 * what they change is served: expiry is exact at every moment by the injected clock. The server also runs them
 * periodically.
 */
import { forgefoldProcesses } from '@forgefold/core';
import type { AnyRouteDef } from '../http/index.js';
import { today, type ApiDeps } from './deps.js';

/** Per process: the state part its command last ran against, and the day it ran. */
const ran = new Map(forgefoldProcesses.map((process) => [process, new WeakMap<object, string>()]));

export const runDueProcesses = async (deps: ApiDeps): Promise<void> => {
  const day = today(deps);
  for (const process of forgefoldProcesses) {
    const state = deps.app.state;
    const runs = ran.get(process)!;
    if (runs.get(process.reads(state)) === day || !process.due(state, deps.clock.now())) continue;
    const result = await deps.app.execute({ userId: null, origin: 'system' }, process.command);
    if (result._tag === 'Right') runs.set(process.reads(result.right.state), day);
  }
};

/** The routes, each running the due processes first. */
export const withDueProcesses = (deps: ApiDeps, routes: readonly AnyRouteDef[]): AnyRouteDef[] =>
  routes.map((def) => ({
    ...def,
    handler: async (ctx: Parameters<typeof def.handler>[0]) => {
      await runDueProcesses(deps);
      return def.handler(ctx);
    },
  }));
