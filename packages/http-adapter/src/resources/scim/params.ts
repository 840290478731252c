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

/**
 * ParameterFilter#call (Rails 6.1 `value_for_key`): a masked key's whole value is masked; hashes are filtered in
 * turn, and so is every element of an array, under the array's key, however deep (`[[{"token"=>…}]]` too).
 */
const sanitize = (value: unknown, key: string | null): unknown => {
  if (key !== null && filtered(key)) return MASK;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, sanitize(v, k)]));
  if (isObject(value)) return new Map(Object.entries(value).map(([k, v]) => [k, sanitize(v, k)]));
  if (Array.isArray(value)) return value.map((item) => sanitize(item, null));
  return value;
};

/**
 * The characters Ruby's `String#inspect` escapes in a UTF-8 string besides the named ones: those Onigmo does not
 * count as printable, the controls but U+0085, the unassigned code points (noncharacters too), the line and paragraph
 * separators; lone surrogates, which a UTF-8 string cannot hold, are escaped too. (Unassigned is as of this Node's
 * Unicode, newer than 2.7's 12.1: a character assigned since prints as it is here.)
 */
const UNPRINTABLE = /[\p{Cc}\p{Cn}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Ruby's `String#inspect` (UTF-8): quotes, backslashes, interpolation openers and control characters escaped. */
const rubyString = (text: string): string => {
  const named: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\f': '\\f', '\v': '\\v', '\b': '\\b', '\x07': '\\a', '\x1b': '\\e' };
  let out = '"';
  const chars = [...text];
  chars.forEach((char, index) => {
    const code = char.codePointAt(0)!;
    if (named[char] !== undefined) out += named[char];
    else if (char === '#' && ['{', '$', '@'].includes(chars[index + 1] ?? '')) out += '\\#';
    else if (code !== 0x85 && UNPRINTABLE.test(char)) out += code > 0xffff ? `\\u{${code.toString(16).toUpperCase()}}` : `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += char;
  });
  return `${out}"`;
};

/**
 * Ruby's `Float#to_s` (`flo_to_s`) over the shortest digits that read back (`ruby_dtoa` mode 0, as JavaScript's): with
 * `decpt` the decimal point's place, the point among the digits when `0 < decpt < digits`, else zeros and `.0` while
 * `decpt <= 15` (DBL_DIG), `0.000ddd` while `decpt > -4`; otherwise `d.ddde+XX` (at least two exponent digits).
 */
const rubyFloat = (value: number): string => {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  if (value === 0) return `${sign}0.0`;
  const [mantissa, exponent] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const decpt = Number(exponent) + 1;
  if (decpt > 0 && decpt < digits.length) return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  if (decpt > 0 && decpt <= 15) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  if (decpt <= 0 && decpt > -4) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  const power = decpt - 1;
  return `${sign}${digits[0]}.${digits.length > 1 ? digits.slice(1) : '0'}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(2, '0')}`;
};

/** Ruby 2.7's `inspect` of a parsed JSON value: `{"k"=>v}`, `[a, b]`, `nil`, integers and floats. */
const rubyInspect = (value: unknown): string => {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return rubyString(value);
  if (typeof value === 'boolean') return String(value);
  // JSON's integers are Ruby Integers, the others Floats. JSON.parse keeps no difference: a whole number below 1e21
  // is taken for an Integer, written with its shortest digits as JSON.stringify writes it (so `1.0` prints as `1`,
  // and an integer past 2^53 as sent when it was sent with those digits).
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : rubyFloat(value);
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
