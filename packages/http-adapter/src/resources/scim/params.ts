/**
 * The request's params as the platform's SCIM API prints them in a provisioning failure:
 * `"Error saving user with #{sanitize_request_parameters(params).inspect}: …"` (EE `ee/lib/api/scim.rb`). Grape's
 * `params` are the query's, then the body's (Rack `GET.merge(POST)`), then the route's (`version`, `group`);
 * `ActiveSupport::ParameterFilter` with the application's `filter_parameters` masks secrets as "[FILTERED]"; Ruby
 * 2.7's `Hash#inspect` prints them.
 */

/** `config.filter_parameters` (14.x `config/application.rb`): these patterns as written (case-sensitive)… */
const FILTERED_PATTERNS: readonly RegExp[] = [/token$/, /password/, /secret/, /key$/, /^body$/, /^description$/, /^note$/, /^text$/, /^title$/];
/** …and these names, which ParameterFilter joins into one case-insensitive pattern matching anywhere in a key. */
const FILTERED_NAMES = /certificate|encrypted_key|hook|import_url|otp_attempt|sentry_dsn|trace|variables|content|sharedSecret/i;
const MASK = '[FILTERED]';

const filtered = (key: string): boolean => FILTERED_PATTERNS.some((pattern) => pattern.test(key)) || FILTERED_NAMES.test(key);

type Params = Map<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** ParameterFilter#call: a masked key's whole value is masked; hashes, also inside arrays, are filtered in turn. */
const sanitize = (value: unknown, key: string | null): unknown => {
  if (key !== null && filtered(key)) return MASK;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, sanitize(v, k)]));
  if (isObject(value)) return new Map(Object.entries(value).map(([k, v]) => [k, sanitize(v, k)]));
  if (Array.isArray(value)) return value.map((item) => (isObject(item) ? sanitize(item, null) : item));
  return value;
};

/** Ruby's `String#inspect` (UTF-8): quotes, backslashes, interpolation openers and control characters escaped. */
const rubyString = (text: string): string => {
  const named: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\f': '\\f', '\v': '\\v', '\b': '\\b', '\x07': '\\a', '\x1b': '\\e' };
  let out = '"';
  const chars = [...text];
  chars.forEach((char, index) => {
    const code = char.codePointAt(0)!;
    if (named[char] !== undefined) out += named[char];
    else if (char === '#' && ['{', '$', '@'].includes(chars[index + 1] ?? '')) out += '\\#';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += char;
  });
  return `${out}"`;
};

/** Ruby's `Float#to_s`: a decimal point always, an exponent from 1e16 up and below 1e-4. */
const rubyFloat = (value: number): string => {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e16 || magnitude < 1e-4)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    const digits = exponent.replace(/^[+-]/, '').padStart(2, '0');
    return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}e${sign}${digits}`;
  }
  const text = String(value);
  return text.includes('.') ? text : `${text}.0`;
};

/** Ruby 2.7's `inspect` of a parsed JSON value: `{"k"=>v}`, `[a, b]`, `nil`, integers and floats. */
const rubyInspect = (value: unknown): string => {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return rubyString(value);
  if (typeof value === 'boolean') return String(value);
  // JSON's integers are Ruby Integers; the others Floats (`1.0` reads back as 1 here: JSON.parse keeps no difference).
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : rubyFloat(value);
  if (Array.isArray(value)) return `[${value.map(rubyInspect).join(', ')}]`;
  const entries = value instanceof Map ? [...(value as Params)] : isObject(value) ? Object.entries(value) : [];
  return `{${entries.map(([k, v]) => `${rubyString(String(k))}=>${rubyInspect(v)}`).join(', ')}}`;
};

/**
 * The sanitized params' `inspect`: query params, then the body's (a body key replaces a query key in its place, as
 * `Hash#merge` does), then the route's: `version` ("v2"), then the path's (`group`, `id`), Grape's routing args,
 * deep-merged last.
 */
export const inspectedParams = (query: Readonly<Record<string, unknown>>, body: Readonly<Record<string, unknown>>, path: Readonly<Record<string, string>>): string => {
  const params: Params = new Map();
  for (const [key, value] of Object.entries(query)) params.set(key, value);
  for (const [key, value] of Object.entries(body)) params.set(key, value);
  params.set('version', 'v2');
  for (const [key, value] of Object.entries(path)) params.set(key, value);
  return rubyInspect(sanitize(params, null));
};
