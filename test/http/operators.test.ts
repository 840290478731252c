/** What operators read: `/-/metrics` in the Prometheus text format (loopback only by default), the version in readiness. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer, Histogram, mount, route, type ApiServer, type AuthBackend } from '@forgefold/http-adapter';

const backend: AuthBackend = { authenticate: () => ({ kind: 'unknown' }), findUser: () => null };
const routes = [mount('/api/v4', [route({ method: 'GET', path: '/things/:id', auth: 'none', handler: (ctx) => (ctx.routeParams['id'] === '0' ? { missing: true } : []) })])];

let api: ApiServer;
let url = '';
const batches = new Histogram([1, 10]);

beforeAll(async () => {
  batches.observe(1);
  batches.observe(7);
  api = createApiServer({
    routes,
    authBackend: backend,
    log: () => {},
    version: '9.8.7',
    metrics: { collect: () => `# HELP host_batches Events per batch.\n# TYPE host_batches histogram\n${batches.samples('host_batches')}` },
  });
  url = (await api.listen(0)).url;
});
afterAll(async () => {
  await api.close();
});

/** Every line is a comment or `name{labels} value`; every sample belongs to a family announced by # TYPE. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const families = new Set<string>();
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.slice(0, -1).split('\n')) {
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram)$/.exec(line);
    if (type) {
      expect(families.has(type[1]!)).toBe(false);
      families.add(type[1]!);
      continue;
    }
    if (line.startsWith('# HELP ')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (-?[0-9.e+-]+|\+Inf|NaN)$/.exec(line);
    expect(sample, line).not.toBeNull();
    const family = sample![1]!.replace(/_(bucket|sum|count)$/, '');
    expect(families.has(sample![1]!) || families.has(family), line).toBe(true);
    samples.set(`${sample![1]}${sample![2] ?? ''}`, Number(sample![3]));
  }
  return samples;
}

describe('/-/metrics', () => {
  it('counts requests by route, method and status, with latency histograms, in the text format', async () => {
    for (let i = 0; i < 3; i++) await fetch(`${url}/api/v4/things/1`);
    await fetch(`${url}/api/v4/things/1`, { method: 'HEAD' });
    await fetch(`${url}/api/v4/nowhere`);
    const response = await fetch(`${url}/-/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = parseExposition(await response.text());
    expect(samples.get('forgefold_http_requests_total{route="GET /api/v4/things/:id",method="GET",status="200"}')).toBe(3);
    expect(samples.get('forgefold_http_requests_total{route="GET /api/v4/things/:id",method="HEAD",status="200"}')).toBe(1);
    expect(samples.get('forgefold_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    await fetch(`${url}/-/health`);
    expect(parseExposition(await (await fetch(`${url}/-/metrics`)).text()).get('forgefold_http_requests_total{route="GET /-/health",method="GET",status="200"}')).toBe(1);
    expect(samples.get('forgefold_http_request_duration_seconds_count{route="GET /api/v4/things/:id",method="GET"}')).toBe(3);
    expect(samples.get('forgefold_http_request_duration_seconds_bucket{route="GET /api/v4/things/:id",method="GET",le="+Inf"}')).toBe(3);
    expect(samples.get('forgefold_build_info{version="9.8.7"}')).toBe(1);
    expect(samples.get('forgefold_http_requests_in_flight')).toBe(1);
    expect(samples.get('host_batches_bucket{le="1"}')).toBe(1);
    expect(samples.get('host_batches_bucket{le="10"}')).toBe(2);
    expect(samples.get('host_batches_sum')).toBe(8);
    // Buckets are cumulative.
    const buckets = [...samples].filter(([k]) => k.startsWith('forgefold_http_request_duration_seconds_bucket{route="GET /api/v4/things/:id",method="GET"')).map(([, v]) => v);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
  });

  it('is the 404 of an unknown route for addresses outside the allow list', async () => {
    const closed = createApiServer({ routes, authBackend: backend, log: () => {}, metrics: { allow: ['10.0.0.0/8', '2001:db8::/32'] } });
    const { url: closedUrl } = await closed.listen(0);
    try {
      const response = await fetch(`${closedUrl}/-/metrics`);
      expect([response.status, await response.text()]).toEqual([404, '{"error":"404 Not Found"}']);
    } finally {
      await closed.close();
    }
    expect(() => createApiServer({ routes, authBackend: backend, metrics: { allow: ['localhost'] } })).toThrow(/not an IP address or CIDR block/);
  });
});

describe('/-/readiness', () => {
  it('carries the product version beside the platform status', async () => {
    expect(await (await fetch(`${url}/-/readiness`)).json()).toEqual({ status: 'ok', forgefold_version: '9.8.7' });
    expect(await (await fetch(`${url}/-/liveness`)).json()).toEqual({ status: 'ok' });
  });
});
