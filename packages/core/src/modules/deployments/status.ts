/**
 * The deployment status machine (`Deployment` state_machine, 14.x; reference §3.7). Each requested status fires an
 * event; an event names the states it leaves from.
 */
export type DeploymentStatus = 'created' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped';

export const DEPLOYMENT_STATUSES: readonly DeploymentStatus[] = ['created', 'running', 'success', 'failed', 'canceled', 'skipped'];

export type DeploymentStatusEvent = 'run' | 'succeed' | 'drop' | 'cancel' | 'skip';

/** `Deployment#update_status`: the event each status is reached by. */
export const STATUS_EVENT: Readonly<Record<Exclude<DeploymentStatus, 'created'>, DeploymentStatusEvent>> = {
  running: 'run',
  success: 'succeed',
  failed: 'drop',
  canceled: 'cancel',
  skipped: 'skip',
};

/** The transitions: `run` from `created` only; the others from any state but their own target. */
const FROM: Readonly<Record<DeploymentStatusEvent, (from: DeploymentStatus) => boolean>> = {
  run: (from) => from === 'created',
  succeed: (from) => from !== 'success',
  drop: (from) => from !== 'failed',
  cancel: (from) => from !== 'canceled',
  skip: (from) => from !== 'skipped',
};

/** The state a status request leads to from `from`, or the event that cannot fire. */
export const transition = (from: DeploymentStatus, to: Exclude<DeploymentStatus, 'created'>): { readonly ok: true; readonly event: DeploymentStatusEvent } | { readonly ok: false; readonly event: DeploymentStatusEvent } => {
  const event = STATUS_EVENT[to];
  return { ok: FROM[event](from), event };
};

/** Whether a status is finished (`finished_at` is set on entering it). */
export const isFinished = (status: DeploymentStatus): boolean => status === 'success' || status === 'failed' || status === 'canceled';
