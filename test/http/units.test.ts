import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ApiError,
  arraySource,
  atLeastOneOf,
  checkUnmodifiedSince,
  decodeParams,
  domainErrorResponse,
  etagMatches,
  exactlyOneOf,
  headerLines,
  modifiedSince,
  mount,
  mutuallyExclusive,
  offsetPage,
  optional,
  pageLinks,
  paginate,
  parseBody,
  parseMultipart,
  parseQueryString,
  requires,
  route,
  Router,
  schema,
  sortedArrayKeysetSource,
  T,
  toQuery,
  weakEtag,
  type HandlerContext,
  type Schema,
} from '@forgefold/http-adapter';

const noop = (): unknown => null;

describe('router', () => {
  const routes = [
    route({ method: 'GET', path: '/groups/:id/members/all', handler: noop, name: 'all' }),
    route({ method: 'GET', path: '/groups/:id/members/:user_id', handler: noop, name: 'one' }),
    route({ method: 'POST', path: '/groups/:id/members/:user_id/override', handler: noop, name: 'ovr+' }),
    route({ method: 'DELETE', path: '/groups/:id/members/:user_id/override', handler: noop, name: 'ovr-' }),
  ];
  const scim = [route({ method: 'GET', path: '/groups/:group/Users/:id*', handler: noop, name: 'scim' })];
  const router = new Router([mount('/api/v4', routes), mount('/api/scim/v2', scim, { contentType: 'application/scim+json' })]);

  it('first declared route wins; params are decoded after matching', () => {
    const a = router.match('GET', '/api/v4/groups/parent%2Fchild/members/all');
    expect(a.kind === 'match' && a.route.def.name).toBe('all');
    expect(a.kind === 'match' && a.params).toEqual({ id: 'parent/child' });
    const b = router.match('GET', '/api/v4/groups/5/members/7');
    expect(b.kind === 'match' && [b.route.def.name, b.params]).toEqual(['one', { id: '5', user_id: '7' }]);
  });

  it('a route without parameters matches with empty params; a parameter route tried before it leaves none behind', () => {
    const literal = new Router([
      mount('/api/v4', [
        route({ method: 'GET', path: '/groups/:id', handler: noop, name: 'group' }),
        route({ method: 'POST', path: '/groups/:id', handler: noop, name: 'update' }),
        route({ method: 'POST', path: '/groups', handler: noop, name: 'create' }),
      ]),
    ]);
    const created = literal.match('POST', '/api/v4/groups');
    expect(created.kind === 'match' && [created.route.def.name, created.params]).toEqual(['create', {}]);
    const one = literal.match('POST', '/api/v4/groups/5');
    expect(one.kind === 'match' && [one.route.def.name, one.params]).toEqual(['update', { id: '5' }]);
  });

  it('an unencoded slash matches nothing', () => {
    expect(router.match('GET', '/api/v4/groups/parent/child/members/all').kind).toBe('not_found');
  });

  it('normalises slashes and accepts .json', () => {
    expect(router.match('GET', '/api/v4//groups/5/members/7/').kind).toBe('match');
    const r = router.match('GET', '/api/v4/groups/5/members/7.json');
    expect(r.kind === 'match' && r.params['user_id']).toBe('7');
  });

  it('HEAD uses GET routes; wrong method is 405 with Allow; OPTIONS', () => {
    expect(router.match('HEAD', '/api/v4/groups/5/members/all').kind).toBe('match');
    const r = router.match('PUT', '/api/v4/groups/1/members/2/override');
    expect(r).toMatchObject({ kind: 'method_not_allowed', allow: ['POST', 'DELETE', 'OPTIONS'] });
    expect(router.match('POST', '/api/v4/groups/1/members/2')).toMatchObject({ allow: ['GET', 'HEAD', 'OPTIONS'] });
    expect(router.match('OPTIONS', '/api/v4/groups/1/members/2')).toMatchObject({ kind: 'options' });
  });

  it('v3 is gone; rest params span segments; bad %-encoding does not match', () => {
    expect(router.match('GET', '/api/v3/projects').kind).toBe('gone');
    const r = router.match('GET', '/api/scim/v2/groups/g/Users/a.b@c/d');
    expect(r.kind === 'match' && r.params).toEqual({ group: 'g', id: 'a.b@c/d' });
    expect(router.match('GET', '/api/v4/groups/%E0%A4%A/members/all').kind).toBe('not_found');
  });
});

describe('params', () => {
  it('query: arrays, hashes, arrays of hashes, + and %2B', () => {
    expect(parseQueryString('a[]=1&a[]=2&h[k]=v&h[x][y]=z&l[][n]=1&l[][m]=2&l[][n]=3&t=2021-01-01T00:00:00%2B01:00&s=a+b')).toEqual({
      a: ['1', '2'],
      h: { k: 'v', x: { y: 'z' } },
      l: [{ n: '1', m: '2' }, { n: '3' }],
      t: '2021-01-01T00:00:00+01:00',
      s: 'a b',
    });
    expect(parseQueryString('p[0][key]=a&p[1][key]=b&p[0][v]=c')).toEqual({ p: [{ key: 'a', v: 'c' }, { key: 'b' }] });
    expect(parseQueryString('flag&x=&y=1;z=2')).toEqual({ flag: null, x: '', y: '1', z: '2' });
    expect(parseQueryString('x=%E2%9C%93')).toEqual({ x: '✓' });
  });

  it('query: invalid %-encoding and type clashes are 400', () => {
    expect(() => parseQueryString('x=%zz')).toThrow(ApiError);
    expect(() => parseQueryString('x=%FF')).toThrow(ApiError);
    try {
      parseQueryString('a=1&a[]=2');
      expect.unreachable();
    } catch (e) {
      expect((e as ApiError).status).toBe(400);
      expect((e as ApiError).body).toEqual({ error: "expected Array (got String) for param `a'" });
    }
  });

  it('bodies: JSON, form, multipart, no content type on POST, unsupported types', () => {
    const j = (s: string, ct = 'application/json') => parseBody(Buffer.from(s), { method: 'PUT', contentType: ct });
    expect(j('{"a":1,"b":[1,2]}')).toEqual({ a: 1, b: [1, 2] });
    expect(j('[1,2]')).toEqual({ _json: [1, 2] });
    expect(j('{"x":1}', 'application/scim+json; charset=utf-8')).toEqual({ x: 1 });
    expect(() => j('{bad')).toThrow(/message body does not match declared format/);
    expect(j('a=1&b[]=2', 'application/x-www-form-urlencoded')).toEqual({ a: '1', b: ['2'] });
    expect(parseBody(Buffer.from('a=1'), { method: 'POST', contentType: undefined })).toEqual({ a: '1' });
    expect(j('a=1', 'text/plain')).toEqual({});
    expect(() => parseBody(Buffer.from('<x/>'), { method: 'POST', contentType: 'application/xml', rejectUnsupportedContentType: true })).toThrow(
      "The provided content-type 'application/xml' is not supported.",
    );
  });

  it("bodies of a GET: forms and multipart give params (Rack's POST); JSON is checked but gives only the tokens (Grape's read_body_input, Rails' params)", () => {
    const get = (s: string, ct: string) => parseBody(Buffer.from(s), { method: 'GET', contentType: ct, rejectUnsupportedContentType: true });
    expect(get('{"search":"x","sudo":"root","private_token":"t","access_token":"a"}', 'application/json')).toEqual({ private_token: 't', access_token: 'a' });
    expect(() => get('{bad', 'application/json')).toThrow(/message body does not match declared format/);
    expect(() => get('{"x":"\\ud800"}', 'application/json')).toThrow(ApiError);
    expect(get('<x/>', 'application/xml')).toEqual({});
    expect(get('search=x', 'application/x-www-form-urlencoded')).toEqual({ search: 'x' });
    expect(get('--B\r\nContent-Disposition: form-data; name="search"\r\n\r\nx\r\n--B--\r\n', 'multipart/form-data; boundary=B')).toEqual({ search: 'x' });
    expect(parseBody(Buffer.from('{"search":"x"}'), { method: 'DELETE', contentType: 'application/json' })).toEqual({ search: 'x' });
    expect(() => parseBody(Buffer.from('<x/>'), { method: 'DELETE', contentType: 'application/xml', rejectUnsupportedContentType: true })).toThrow(ApiError);
  });

  it('multipart: text fields, nesting, files', () => {
    const b = 'XyZ';
    const body = Buffer.from(
      [
        `--${b}`,
        'Content-Disposition: form-data; name="name"',
        '',
        'héllo',
        `--${b}`,
        'Content-Disposition: form-data; name="ids[]"',
        '',
        '1',
        `--${b}`,
        'Content-Disposition: form-data; name="ids[]"',
        '',
        '2',
        `--${b}`,
        'Content-Disposition: form-data; name="file"; filename="a.txt"',
        'Content-Type: text/plain',
        '',
        'line1\r\nline2',
        `--${b}--`,
        '',
      ].join('\r\n'),
    );
    const p = parseMultipart(body, b);
    expect(p['name']).toBe('héllo');
    expect(p['ids']).toEqual(['1', '2']);
    const f = p['file'] as { filename: string; contentType: string; data: Buffer };
    expect([f.filename, f.contentType, f.data.toString()]).toEqual(['a.txt', 'text/plain', 'line1\r\nline2']);
    expect(parseBody(body, { method: 'POST', contentType: `multipart/form-data; boundary="${b}"` })['name']).toBe('héllo');
    expect(() => parseMultipart(Buffer.from('garbage'), b)).toThrow(ApiError);
  });
});

describe('validation (Grape texts)', () => {
  const members = schema(
    requires('access_level', T.Integer),
    requires('user_id', T.IntegerOrString),
    optional('expires_at', T.DateTime),
    optional('invite_source', T.String, { default: 'members-api' }),
  );
  const msg = <P,>(s: Schema<P>, raw: Record<string, unknown>): string => {
    const r = decodeParams(s, raw);
    return r.ok ? 'OK' : r.message;
  };

  it('missing params in declaration order', () => {
    expect(msg(members, {})).toBe('access_level is missing, user_id is missing');
    expect(msg(members, { user_id: '1' })).toBe('access_level is missing');
  });

  it('coercion, values, except_values, blank', () => {
    expect(msg(members, { access_level: 'abc', user_id: '1' })).toBe('access_level is invalid');
    expect(msg(members, { access_level: '30', user_id: '1', expires_at: 'notadate' })).toBe('expires_at is invalid');
    const s = schema(optional('state', T.String, { values: ['awaiting', 'active'] }), optional('per_page', T.Integer, { exceptValues: [0] }));
    expect(msg(s, { state: 'x' })).toBe('state does not have a valid value');
    expect(msg(s, { per_page: '0' })).toBe('per_page has a value not allowed');
    expect(msg(s, { state: 'x', per_page: '0' })).toBe('state does not have a valid value, per_page has a value not allowed');
    expect(msg(schema(requires('ref', T.String, { allowBlank: false })), { ref: '' })).toBe('ref is empty');
    expect(msg(schema(requires('a', T.Integer), requires('b', T.Boolean)), { a: 'x', b: 'maybe' })).toBe('a is invalid, b is invalid');
  });

  it('typed output with coercion and defaults', () => {
    const r = decodeParams(members, { access_level: '30', user_id: '12', expires_at: '2030-01-02' });
    expect(r).toEqual({ ok: true, value: { access_level: 30, user_id: 12, expires_at: '2030-01-02T00:00:00.000Z', invite_source: 'members-api' } });
    if (r.ok) {
      const n: number | null = r.value.access_level;
      const u: number | string | null = r.value.user_id;
      void n;
      void u;
    }
    expect(decodeParams(members, { access_level: 30, user_id: '12,13' })).toMatchObject({ ok: true, value: { user_id: '12,13' } });
    expect(decodeParams(members, { access_level: '', user_id: 'bob' })).toMatchObject({ ok: true, value: { access_level: null, user_id: 'bob' } });
  });

  it('booleans, dates, arrays, comma lists, hashes', () => {
    const s = schema(
      optional('b', T.Boolean, { default: false }),
      optional('d', T.Date),
      optional('ids', T.CommaSeparatedIntegers),
      optional('tags', T.Array(T.String)),
      optional('nums', T.Array(T.Integer)),
      optional('h', T.Hash(schema(requires('token', T.String), optional('port', T.Integer)))),
    );
    const ok = (raw: Record<string, unknown>) => {
      const r = decodeParams(s, raw);
      if (!r.ok) throw new Error(r.message);
      return r.value;
    };
    for (const [v, out] of [['true', true], ['1', true], ['yes', true], ['FALSE', false], ['0', false], [true, true], [false, false]] as const)
      expect(ok({ b: v }).b).toBe(out);
    expect(ok({}).b).toBe(false);
    expect(msg(s, { b: 'maybe' })).toBe('b is invalid');
    expect(ok({ d: '2024-02-29' }).d).toBe('2024-02-29');
    expect(msg(s, { d: '2023-02-29' })).toBe('d is invalid');
    expect(ok({ ids: '1,2' }).ids).toEqual([1, 2]);
    expect(ok({ ids: ['1', '2,3'] }).ids).toEqual([1, 2, 3]);
    expect(ok({ ids: 'abc' }).ids).toEqual([0]);
    expect(ok({ tags: ['a', 'b'] }).tags).toEqual(['a', 'b']);
    expect(ok({ nums: ['1', 2] }).nums).toEqual([1, 2]);
    expect(msg(s, { nums: ['x'] })).toBe('nums is invalid');
    expect(msg(s, { nums: '1' })).toBe('nums is invalid');
    expect(ok({ h: { token: 't', port: '8' } }).h).toEqual({ token: 't', port: 8 });
    expect(msg(s, { h: { port: 'x' } })).toBe('h[token] is missing, h[port] is invalid');
    expect(msg(s, { h: 'str' })).toBe('h is invalid');
  });

  it('group rules', () => {
    const s = schema(
      requires('email', T.String),
      optional('password', T.String),
      optional('reset_password', T.Boolean),
      optional('force_random_password', T.Boolean),
      atLeastOneOf('password', 'reset_password', 'force_random_password'),
    );
    expect(msg(s, {})).toBe('email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided');
    expect(msg(schema(optional('a', T.String), optional('b', T.String), optional('c', T.String), mutuallyExclusive('a', 'b', 'c')), { a: '1', c: '2' })).toBe(
      'a, c are mutually exclusive',
    );
    expect(msg(schema(exactlyOneOf('body', 'resolved')), {})).toBe('body, resolved are missing, exactly one parameter must be provided');
  });
});

describe('errors', () => {
  it('maps DomainError per reference §1.1/§1.2', () => {
    expect(domainErrorResponse({ _tag: 'NotFound' })).toEqual({ status: 404, body: { message: '404 Not Found' } });
    expect(domainErrorResponse({ _tag: 'NotFound', resource: 'Group' })).toEqual({ status: 404, body: { message: '404 Group Not Found' } });
    expect(domainErrorResponse({ _tag: 'NotFound', message: '404 Not found' })).toEqual({ status: 404, body: { message: '404 Not found' } });
    expect(domainErrorResponse({ _tag: 'Forbidden' })).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(domainErrorResponse({ _tag: 'Forbidden', reason: 'x' })).toEqual({ status: 403, body: { message: '403 Forbidden - x' } });
    expect(domainErrorResponse({ _tag: 'Unauthorized' })).toEqual({ status: 401, body: { message: '401 Unauthorized' } });
    expect(domainErrorResponse({ _tag: 'Conflict', message: 'Member already exists' })).toEqual({ status: 409, body: { message: 'Member already exists' } });
    expect(domainErrorResponse({ _tag: 'Validation', errors: { access_level: ['is not included in the list'] } })).toEqual({
      status: 400,
      body: { message: { access_level: ['is not included in the list'] } },
    });
    expect(domainErrorResponse({ _tag: 'BadRequest' })).toEqual({ status: 400, body: { message: '400 Bad request' } });
    expect(domainErrorResponse({ _tag: 'BadRequest', reason: 'r' })).toEqual({ status: 400, body: { message: '400 Bad request - r' } });
    expect(domainErrorResponse({ _tag: 'BadRequest', message: 'verbatim' })).toEqual({ status: 400, body: { message: 'verbatim' } });
    expect(domainErrorResponse({ _tag: 'PreconditionFailed' })).toEqual({ status: 412, body: { message: '412 Precondition Failed' } });
    expect(domainErrorResponse({ _tag: 'MethodNotAllowed' })).toEqual({ status: 405, body: { message: '405 Method Not Allowed' } });
    expect(domainErrorResponse({ _tag: 'Unprocessable' })).toEqual({ status: 422, body: { message: '422 Unprocessable Entity' } });
  });
});

describe('conditional requests', () => {
  it('weak ETag and If-None-Match', () => {
    const e = weakEtag('[1]');
    expect(e).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect(etagMatches(e, e)).toBe(true);
    expect(etagMatches(`"x", ${e.slice(2)}`, e)).toBe(true);
    expect(etagMatches('*', e)).toBe(true);
    expect(etagMatches('W/"other"', e)).toBe(false);
  });
  it('If-Unmodified-Since', () => {
    expect(modifiedSince('Wed, 01 Jan 2020 00:00:00 GMT', '2020-01-01T00:00:01.000Z')).toBe(true);
    expect(modifiedSince('Wed, 01 Jan 2020 00:00:00 GMT', '2020-01-01T00:00:00.000Z')).toBe(false);
    expect(modifiedSince('garbage', '2020-01-01T00:00:01.000Z')).toBe(false);
    // What Ruby's Time.parse rejects is ignored (`rescue nil`), though Date.parse reads some as years.
    for (const value of ['0', '-1', '2021', '1.5']) expect(modifiedSince(value, '2020-01-01T00:00:01.000Z')).toBe(false);
    expect(modifiedSince('2020-01-01', '2020-01-01T00:00:01.000Z')).toBe(true);
    expect(modifiedSince('2020-01-01T00:00:02Z', '2020-01-01T00:00:01.000Z')).toBe(false);
    expect(modifiedSince('Wednesday, 01-Jan-20 00:00:00 GMT', '2020-01-01T00:00:01.000Z')).toBe(true);
    expect(modifiedSince('Wed Jan  1 00:00:00 2020', '2021-01-01T00:00:01.000Z')).toBe(true);
    // RFC 2822's other zones (Ruby's Time#rfc2822, Python's formatdate) and ISO with "UTC", which Time.parse reads.
    for (const value of ['Wed, 01 Jan 2020 00:00:00 +0000', 'Wed, 01 Jan 2020 00:00:00 UTC', '01 Jan 2020 00:00 GMT', '2020-01-01 00:00:00 UTC']) {
      expect(modifiedSince(value, '2020-01-01T00:00:01.000Z'), value).toBe(true);
    }
    expect(modifiedSince('Wed, 01 Jan 2020 00:00:00 -0100', '2020-01-01T00:00:01.000Z')).toBe(false);
    expect(() => checkUnmodifiedSince({ 'if-unmodified-since': 'Wed, 01 Jan 2020 00:00:00 GMT' }, '2021-01-01T00:00:00Z')).toThrow(ApiError);
    try {
      checkUnmodifiedSince({ 'if-unmodified-since': 'Wed, 01 Jan 2020 00:00:00 GMT' }, '2021-01-01T00:00:00Z');
    } catch (e) {
      expect([(e as ApiError).status, (e as ApiError).body]).toEqual([412, { message: '412 Precondition Failed' }]);
    }
  });
});

describe('header values', () => {
  it('go out as Puma writes them: UTF-8 bytes, a line per line, a line with a control character left out', () => {
    const bytes = (lines: string[]) => lines.map((line) => [...Buffer.from(line, 'latin1')]);
    expect(headerLines('attachment; filename="a.txt"')).toEqual(['attachment; filename="a.txt"']);
    expect(bytes(headerLines('日本.txt'))).toEqual([[...Buffer.from('日本.txt', 'utf8')]]);
    expect(bytes(headerLines('é'))).toEqual([[0xc3, 0xa9]]);
    expect(headerLines('a\nb\n\n')).toEqual(['a', 'b']);
    expect(headerLines('\nb')).toEqual(['', 'b']);
    expect(headerLines('a\r\nb')).toEqual(['b']);
    expect(headerLines('a\x00b')).toEqual([]);
    expect(headerLines('a\x7fb')).toEqual([]);
    expect(headerLines('a\tb')).toEqual(['a\tb']);
  });
});

describe('pagination', () => {
  const ctxFor = (query: Record<string, unknown>, path = '/api/v4/groups/5/members'): HandlerContext<unknown> =>
    ({
      params: {},
      raw: { ...query, id: '5' },
      routeParams: { id: '5' },
      query,
      rawBody: Buffer.alloc(0),
      actor: { userId: 1, origin: 'api' },
      principal: null,
      token: null,
      request: { method: 'GET', path, query: '', headers: {}, requestId: 'r', baseUrl: 'http://gl.test' },
      route: undefined as never,
    }) as HandlerContext<unknown>;
  const items = Array.from({ length: 45 }, (_, i) => i + 1);
  const headersOf = (q: Record<string, unknown>, n = items) => {
    const r = paginate(ctxFor(q), arraySource(n));
    return { body: r.body, h: r.headers! };
  };
  const url = (q: string) => `<http://gl.test/api/v4/groups/5/members?${q}>`;

  it('first page', () => {
    const { body, h } = headersOf({});
    expect(body).toEqual(items.slice(0, 20));
    expect(h).toEqual({
      'X-Per-Page': '20',
      'X-Page': '1',
      'X-Next-Page': '2',
      'X-Prev-Page': '',
      'X-Total': '45',
      'X-Total-Pages': '3',
      Link: `${url('id=5&page=2&per_page=20')}; rel="next", ${url('id=5&page=1&per_page=20')}; rel="first", ${url('id=5&page=3&per_page=20')}; rel="last"`,
    });
  });

  it('middle page with other params; order prev, next, first, last', () => {
    const { h } = headersOf({ page: '2', per_page: '10', query: 'a b', user_ids: ['1', '2'] });
    expect(h['X-Prev-Page']).toBe('1');
    expect(h['X-Next-Page']).toBe('3');
    expect(h['Link']).toBe(
      [
        `${url('id=5&page=1&per_page=10&query=a+b&user_ids%5B%5D=1&user_ids%5B%5D=2')}; rel="prev"`,
        `${url('id=5&page=3&per_page=10&query=a+b&user_ids%5B%5D=1&user_ids%5B%5D=2')}; rel="next"`,
        `${url('id=5&page=1&per_page=10&query=a+b&user_ids%5B%5D=1&user_ids%5B%5D=2')}; rel="first"`,
        `${url('id=5&page=5&per_page=10&query=a+b&user_ids%5B%5D=1&user_ids%5B%5D=2')}; rel="last"`,
      ].join(', '),
    );
  });

  it('beyond the last page: [], no prev/next', () => {
    const { body, h } = headersOf({ page: '9' });
    expect(body).toEqual([]);
    expect([h['X-Page'], h['X-Prev-Page'], h['X-Next-Page']]).toEqual(['9', '', '']);
    expect(h['Link']).toBe(`${url('id=5&page=1&per_page=20')}; rel="first", ${url('id=5&page=3&per_page=20')}; rel="last"`);
  });

  it('per_page=1000 → 100 items, X-Per-Page 100, links echo 1000', () => {
    const many = Array.from({ length: 250 }, (_, i) => i);
    const { body, h } = headersOf({ per_page: '1000' }, many);
    expect((body as unknown[]).length).toBe(100);
    expect(h['X-Per-Page']).toBe('100');
    expect(h['X-Total-Pages']).toBe('3');
    expect(h['Link']).toContain(`${url('id=5&page=2&per_page=1000')}; rel="next"`);
  });

  it('empty list', () => {
    const { body, h } = headersOf({}, []);
    expect(body).toEqual([]);
    expect(h).toMatchObject({ 'X-Total': '0', 'X-Total-Pages': '1', 'X-Page': '1', 'X-Next-Page': '', 'X-Prev-Page': '' });
    expect(h['Link']).toBe(`${url('id=5&page=1&per_page=20')}; rel="first", ${url('id=5&page=1&per_page=20')}; rel="last"`);
  });

  it('invalid page, per_page=0, page<=0', () => {
    expect(() => headersOf({ page: 'abc' })).toThrow('{"error":"page is invalid"}');
    expect(() => headersOf({ per_page: '0' })).toThrow('{"error":"per_page has a value not allowed"}');
    expect(headersOf({ page: '0' }).h['X-Page']).toBe('1');
    expect(headersOf({ per_page: '-5' }).h['X-Per-Page']).toBe('20');
  });

  it('over 10,000: no totals, no last; costs a page, not the collection', () => {
    let sliced = 0;
    const src = { count: () => 20_000, slice: (o: number, l: number) => ((sliced += l), Array.from({ length: l }, (_, i) => o + i)) };
    const r = offsetPage(src, 2, 20, (n) => `u${n}`);
    expect(r.items.length).toBe(20);
    expect(sliced).toBe(20);
    expect(r.headers['X-Total']).toBeUndefined();
    expect(r.headers['X-Total-Pages']).toBeUndefined();
    expect(r.headers['Link']).toBe('<u1>; rel="prev", <u3>; rel="next", <u1>; rel="first"');
  });

  it('a list that does not count (exclude_total_headers) keeps rel=last and the previous page past 10,000', () => {
    // The commits list: 20 loaded at offset 20,000, one more assumed.
    const src = { count: () => 20_021, slice: (o: number, l: number) => Array.from({ length: l }, (_, i) => o + i) };
    const r = offsetPage(src, 1001, 20, (n) => `u${n}`, true);
    expect([r.headers['X-Total'], r.headers['X-Next-Page'], r.headers['X-Prev-Page']]).toEqual([undefined, '1002', '1000']);
    expect(r.headers['Link']).toBe('<u1000>; rel="prev", <u1002>; rel="next", <u1>; rel="first", <u1002>; rel="last"');
  });

  it('keyset', () => {
    const rows = Array.from({ length: 5 }, (_, i) => ({ id: i + 1 }));
    const ks = { source: sortedArrayKeysetSource(rows, (r) => r.id), supports: (o: string | undefined) => o === 'id' };
    const run = (q: Record<string, unknown>) => paginate(ctxFor(q, '/api/v4/projects'), arraySource(rows), { keyset: ks });
    const r1 = run({ pagination: 'keyset', order_by: 'id', per_page: '2' });
    expect(r1.body).toEqual([{ id: 5 }, { id: 4 }]);
    expect(r1.headers!['Link']).toBe('<http://gl.test/api/v4/projects?id=5&id_before=4&order_by=id&pagination=keyset&per_page=2>; rel="next"');
    expect(r1.headers!['X-Total']).toBeUndefined();
    const r2 = run({ pagination: 'keyset', order_by: 'id', sort: 'asc', per_page: '3', id_after: '3' });
    expect(r2.body).toEqual([{ id: 4 }, { id: 5 }]);
    expect(r2.headers!['Link']).toContain('id_after=5');
    const r3 = run({ pagination: 'keyset', order_by: 'id', sort: 'asc', id_after: '5' });
    expect(r3.body).toEqual([]);
    expect(r3.headers!['Link']).toBeUndefined();
    expect(() => run({ pagination: 'keyset' })).toThrow('{"error":"Keyset pagination is not yet available for this type of request"}');
    expect(() => paginate(ctxFor({ pagination: 'keyset', order_by: 'id' }), arraySource(rows))).toThrow(/Keyset pagination is not yet available/);
    expect(() => paginate(ctxFor({ page: '501', per_page: '100' }), arraySource(rows), { maxOffset: { limit: 50_000, type: 'Project' } })).toThrow(
      'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project.',
    );
  });

  it('toQuery escapes an unpaired surrogate as U+FFFD instead of throwing', () => {
    expect(toQuery({ x: 'a\ud800b', y: '\udc00' })).toBe('x=a%EF%BF%BDb&y=%EF%BF%BD');
    expect(toQuery({ x: '\u{1F600}' })).toBe('x=%F0%9F%98%80');
  });

  it('pageLinks builds each page link as toQuery of the params with that page would', () => {
    const key = fc.oneof(fc.constantFrom('page', 'per_page', 'pag', 'page_x', 'pagf', 'p', 'page[]', 'a', 'zz'), fc.string({ maxLength: 6 }));
    const leaf = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null));
    const value = fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }), fc.dictionary(key, leaf, { maxKeys: 3 }));
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), fc.integer({ min: 1, max: 100_000 }), (params, page) => {
        expect(pageLinks('http://h/api/v4/x', params)(page)).toBe(`http://h/api/v4/x?${toQuery({ ...params, page })}`);
      }),
      { numRuns: 1000 },
    );
    // A nested key under an empty name escapes to `page` too.
    expect(pageLinks('http://h/x', { '': { page: 1_000_000_000 } })(2)).toBe('http://h/x?page=1000000000&page=2');
  });

  it('toQuery like Rails', () => {
    expect(toQuery({ b: 'x y', a: [1, 2], h: { z: '1', c: null } })).toBe('a%5B%5D=1&a%5B%5D=2&b=x+y&h%5Bc%5D=&h%5Bz%5D=1');
    expect(toQuery({ e: [] })).toBe('e%5B%5D=');
  });
});
