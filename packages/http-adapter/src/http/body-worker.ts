/**
 * Large bodies (JSON, forms, multipart), parsed off the event loop.
 *
 * A body is parsed before authentication (a token may come in it, as on the platform), and parsing holds the
 * event loop for as long as it takes: JSON.parse ~0.5 s for an 8 MB object of 700,000 keys; a 10 MiB form of
 * pairs Rack's limits let through (a hash of one key per pair, or hashes of 8,000 keys each) 0.1-0.5 s, a 10 MiB
 * multipart body of small parts ~0.35 s; during which no other request is answered. A body of `parseInWorkerBytes`
 * or more is decoded, parsed and checked in a worker thread instead, by the same code (`JSON_CHECKS_SOURCE`,
 * `FORM_PARSER_SOURCE`), so it is refused with the same answers. What comes back is not the value: handing a parsed
 * object to another thread costs about what parsing it did. It is the values of the names the route can read
 * (`bodyNames`: its schema's, pagination's, and the credentials' when they are text), each serialized; a value is
 * deserialized on the loop when it is first read. So a body's bulk, under names no one reads or under one read only
 * once the caller is authenticated, costs the loop nothing; what a route does read costs about what parsing that
 * part did.
 *
 * One worker, started by the first large body and stopped with the server; bodies queue for it. The worker source
 * is a plain CommonJS string run with `eval: true`, so it works the same under vitest and compiled JavaScript.
 */
import { deserialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { CREDENTIAL_PARAMS } from './auth.js';
import { FORM_PARSER_SOURCE, RACK_LIMITS, type RackLimits } from './form-params.js';
import { PAGINATION_PARAMS } from './pagination.js';
import { formatterReadsBody, JSON_CHECKS_SOURCE, MAX_PARAM_DEPTH, TOKENS_OF_REQUEST_PARAMS, type BodyFault, type BodyFormat } from './params.js';
import type { CompiledRoute } from './router.js';
import type { RawParams } from './validation.js';

/**
 * Bodies of at least this many bytes are parsed in the worker. Below it, a JSON body of as many keys as its bytes
 * allow (~7,000) costs the loop ~2 ms to parse and merge, and a list that echoes them in its links ~30-50 ms; a
 * form or multipart body about as much.
 */
export const DEFAULT_PARSE_IN_WORKER_BYTES = 64 * 1024;

/** A value of the body, serialized (`v8.serialize`) by the worker. */
type PickedValue = readonly [name: string, bytes: Uint8Array];

/** What the worker answers for a body: its fault, or the values of the names asked for that it holds. */
type WorkerReading = { readonly fault: BodyFault } | { readonly fault: null; readonly picked: readonly PickedValue[] };

interface Request {
  readonly id: number;
  readonly bytes: Uint8Array;
  readonly format: BodyFormat;
  readonly names: BodyNames;
  readonly maxDepth: number;
  readonly limits: RackLimits;
}

type Reply = { readonly id: number } & (WorkerReading | { readonly fault?: undefined; readonly error: string });

const workerSource = `
const { parentPort } = require('node:worker_threads');
const { serialize } = require('node:v8');
const decoder = new TextDecoder('utf-8', { fatal: true });
${JSON_CHECKS_SOURCE}
${FORM_PARSER_SOURCE}
const decodeText = (bytes) => { try { return decoder.decode(bytes); } catch { return undefined; } };
const undecodable = () => ({ fault: { kind: 'malformed', where: 'the request body' } });
const jsonParamsOf = (bytes, maxDepth) => {
  const text = decodeText(bytes);
  if (text === undefined) return undecodable();
  let parsed;
  try { parsed = JSON.parse(text); } catch { return { fault: { kind: 'syntax' } }; }
  const fault = jsonFault(text, parsed, maxDepth);
  return fault !== null ? { fault } : { fault: null, params: jsonBodyParams(parsed) };
};
const formParamsOf = (parse) => {
  if (parse.fault !== null) return parse;
  const fault = parse.suspect ? paramsFault(parse.params, Infinity) : null;
  return fault !== null ? { fault } : parse;
};
const paramsOf = ({ bytes, format, maxDepth, limits }) => {
  if (format.kind === 'json') return jsonParamsOf(bytes, maxDepth);
  if (format.kind === 'multipart') return formParamsOf(parseMultipartBody(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), format.boundary, limits));
  const text = decodeText(bytes);
  if (text === undefined) return undecodable();
  return formParamsOf(parseFormText(text, limits));
};
const read = (request) => {
  const result = paramsOf(request);
  if (result.fault !== null) return { fault: result.fault };
  const params = result.params;
  const has = (name) => Object.prototype.hasOwnProperty.call(params, name);
  const picked = [];
  for (const name of request.names.values) if (has(name)) picked.push([name, serialize(params[name])]);
  for (const name of request.names.texts) {
    if (has(name) && (typeof params[name] === 'string' || typeof params[name] === 'number')) picked.push([name, serialize(params[name])]);
  }
  return { fault: null, picked };
};
parentPort.on('message', (request) => {
  let reply;
  try { reply = read(request); } catch (error) { reply = { error: String((error && error.stack) || error) }; }
  parentPort.postMessage({ id: request.id, ...reply });
});
`;

/** The worker of one server. */
export class BodyWorker {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve: (reading: WorkerReading) => void; reject: (error: Error) => void }>();
  private nextId = 0;

  /** Decodes, parses and checks a body in the worker; the values it holds of `names`. */
  read(body: Buffer, format: BodyFormat, names: BodyNames): Promise<WorkerReading> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    // A copy, moved to the worker (the handler keeps `rawBody`): one copy of the bytes in all.
    const bytes = new Uint8Array(body);
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, bytes, format, names, maxDepth: MAX_PARAM_DEPTH, limits: RACK_LIMITS } satisfies Request, [bytes.buffer]);
    });
  }

  /** Stops the worker; bodies still waiting fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    const worker = new Worker(workerSource, { eval: true });
    // The server's sockets keep the process alive while a body waits; a server never closed does not.
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if (reply.fault === undefined) waiter.reject(new Error(`The body worker failed: ${reply.error}`));
      else waiter.resolve(reply);
    });
    const fail = (error: Error): void => {
      if (this.worker === worker) this.worker = null;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('The body worker stopped')));
    this.worker = worker;
    return worker;
  }
}

/**
 * The names a route can read of a body parsed off the loop: its schema's and pagination's (`values`), and the
 * credentials (`texts`), taken only when a string or a number: authentication reads no other value of theirs, and
 * reads them before anything else, so a large value there would be deserialized on the loop for nobody.
 */
export interface BodyNames {
  readonly values: readonly string[];
  readonly texts: readonly string[];
}

const bodyNamesCache = new WeakMap<CompiledRoute, BodyNames>();

/** What is read of a JSON body on a method whose body Grape's formatter does not read (see `parseBody`). */
const TOKENS_ONLY: BodyNames = { values: [], texts: TOKENS_OF_REQUEST_PARAMS };

/** The names a route can read of a body parsed off the loop (`BodyNames`), sent with `method` in `format`. */
export function bodyNames(route: CompiledRoute, method: string, format: BodyFormat): BodyNames {
  if (format.kind === 'json' && !formatterReadsBody(method)) return TOKENS_ONLY;
  let names = bodyNamesCache.get(route);
  if (names === undefined) {
    const values = [...new Set([...(route.def.params?.names ?? []), ...PAGINATION_PARAMS])];
    names = { values, texts: CREDENTIAL_PARAMS.filter((name) => !values.includes(name)) };
    bodyNamesCache.set(route, names);
  }
  return names;
}

/**
 * Query, overridden by the worker's values of the body, overridden by route params (Grape, as `mergeParams`). A
 * body value is deserialized when first read, then kept as a plain property.
 */
export function mergePickedParams(query: RawParams, picked: readonly PickedValue[], route: Readonly<Record<string, string>>): RawParams {
  const raw: RawParams = { ...query };
  for (const [name, bytes] of picked) {
    if (Object.prototype.hasOwnProperty.call(route, name)) continue;
    const settle = (value: unknown): void => {
      Object.defineProperty(raw, name, { value, writable: true, enumerable: true, configurable: true });
    };
    Object.defineProperty(raw, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value: unknown = deserialize(bytes);
        settle(value);
        return value;
      },
      set: settle,
    });
  }
  return Object.assign(raw, route);
}
