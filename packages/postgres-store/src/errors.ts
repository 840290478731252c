/** Which failures mean "the database cannot be reached right now" (answered as StoreUnavailable). */
import { StoreUnavailable } from '@forgefold/core';

/** Socket errors and postgres.js's own connection codes. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/**
 * SQLSTATEs of a server that is going away or not yet back: class 08 (connection exception), 57P01-57P03
 * (admin / crash shutdown, cannot connect now), 53300 (too many connections), 58030 (I/O error).
 */
const isUnavailableState = (code: string): boolean => code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';

export const isConnectionFailure = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  return CONNECTION_CODES.has(code) || isUnavailableState(code);
};

/** Rethrows a connection failure as StoreUnavailable, anything else as it is. */
export const translate = (error: unknown): never => {
  if (error instanceof StoreUnavailable) throw error;
  if (isConnectionFailure(error)) {
    throw new StoreUnavailable(`PostgreSQL is unavailable: ${(error as Error).message}`, { cause: error });
  }
  throw error;
};
