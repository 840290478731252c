/**
 * A raw HTTP/1.1 client for properties about the wire: it sends exact bytes (optionally in pieces, reading only
 * after the last one, as curl and python-requests do) and parses everything the server sent until it closed,
 * so that a test can say "exactly one well-formed reply".
 */
import { connect } from 'node:net';

export interface RawReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export interface RawExchange {
  readonly replies: readonly RawReply[];
  /** Why the bytes received are not a sequence of well-formed replies, or null. */
  readonly malformed: string | null;
  /** A socket error the client saw (a reset while sending is one), or null. */
  readonly error: string | null;
}

const STATUS_LINE = /^HTTP\/1\.1 (\d{3}) [^\r\n]*$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

/** Splits what a server sent into replies to a request of `method`; JSON bodies must parse. */
export function parseReplies(bytes: Buffer, method: string): { replies: RawReply[]; malformed: string | null } {
  const replies: RawReply[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', pos);
    if (headEnd === -1) return { replies, malformed: `an incomplete head after ${replies.length} replies` };
    const [statusLine = '', ...lines] = bytes.subarray(pos, headEnd).toString('latin1').split('\r\n');
    const status = STATUS_LINE.exec(statusLine);
    if (!status) return { replies, malformed: `a bad status line: ${JSON.stringify(statusLine.slice(0, 80))}` };
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const header = HEADER_LINE.exec(line);
      if (!header) return { replies, malformed: `a bad header line: ${JSON.stringify(line.slice(0, 80))}` };
      headers[header[1]!.toLowerCase()] = header[2]!;
    }
    const code = Number(status[1]);
    pos = headEnd + 4;
    let body: Buffer = Buffer.alloc(0);
    const bodiless = method === 'HEAD' || code === 204 || code === 304 || code < 200;
    if (!bodiless) {
      const length = headers['content-length'];
      if (length !== undefined) {
        if (!/^\d+$/.test(length)) return { replies, malformed: `a bad Content-Length: ${length}` };
        if (pos + Number(length) > bytes.length) return { replies, malformed: `a body cut short (${bytes.length - pos} of ${length} bytes)` };
        body = bytes.subarray(pos, pos + Number(length));
        pos += Number(length);
      } else if (headers['transfer-encoding'] === 'chunked') {
        return { replies, malformed: 'a chunked reply (the server always sends a length)' };
      } else {
        body = bytes.subarray(pos);
        pos = bytes.length;
      }
    }
    if (body.length > 0 && /json/.test(headers['content-type'] ?? '')) {
      try {
        JSON.parse(body.toString('utf8'));
      } catch {
        return { replies, malformed: `a JSON body that does not parse: ${JSON.stringify(body.subarray(0, 80).toString('utf8'))}` };
      }
    }
    replies.push({ status: code, headers, body });
  }
  return { replies, malformed: null };
}

export interface SendOptions {
  /** Write the body in pieces of this size, pausing between them (default: all at once). */
  readonly pieceBytes?: number;
  readonly pauseMs?: number;
  /** Give up (and destroy the socket) after this long; default 20 s. */
  readonly timeoutMs?: number;
}

/** Sends `head` then `body` on a fresh connection, reads only after sending, until the server closes. */
export function rawExchange(baseUrl: string, method: string, head: string, body: Buffer | null, options: SendOptions = {}): Promise<RawExchange> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.pause();
    const chunks: Buffer[] = [];
    let error: string | null = null;
    const timer = setTimeout(() => {
      error ??= 'timed out';
      socket.destroy();
    }, options.timeoutMs ?? 20_000);
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parseReplies(Buffer.concat(chunks), method), error });
    });
    socket.on('connect', async () => {
      socket.write(head);
      if (body) {
        const piece = options.pieceBytes ?? body.length;
        for (let sent = 0; sent < body.length && error === null && !socket.destroyed; sent += piece) {
          socket.write(body.subarray(sent, sent + piece));
          if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
        }
      }
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.resume();
    });
  });
}

export type FieldEncoding = 'json' | 'form' | 'multipart';
export type FieldValue = string | number | readonly string[];

/** A flat set of fields (arrays as `k[]` in forms) as a request body in one of the encodings clients use, with its Content-Type. */
export function encodeFields(fields: Readonly<Record<string, FieldValue>>, encoding: FieldEncoding): { body: Buffer; contentType: string } {
  if (encoding === 'json') return { body: Buffer.from(JSON.stringify(fields)), contentType: 'application/json' };
  const pairs = Object.entries(fields).flatMap(([k, v]): [string, string][] => (Array.isArray(v) ? v.map((item): [string, string] => [`${k}[]`, item]) : [[k, String(v)]]));
  if (encoding === 'form') return { body: Buffer.from(new URLSearchParams(pairs).toString()), contentType: 'application/x-www-form-urlencoded' };
  const boundary = 'forgefold-fuzz-boundary';
  const parts = pairs.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  return { body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), contentType: `multipart/form-data; boundary=${boundary}` };
}
