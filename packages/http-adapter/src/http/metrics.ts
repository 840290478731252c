/**
 * `/-/metrics`: the Prometheus text format (version 0.0.4), for operators. The server counts requests by route,
 * method and status and keeps latency histograms; the host adds its own families (commit batches, log
 * position, snapshot age) through `MetricsOptions.collect`. Who may read it: the platform's rule, an IP allow
 * list that defaults to loopback (`monitoring_ip_whitelist`); anyone else gets the 404 of an unknown route.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export const METRICS_PATH = '/-/metrics';
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
/** The platform's default monitoring allow list. */
export const DEFAULT_METRICS_ALLOW: readonly string[] = ['127.0.0.0/8', '::1/128'];

export interface MetricsOptions {
  /** Addresses or CIDR blocks that may read `/-/metrics`; default loopback. Empty: nobody. */
  readonly allow?: readonly string[];
  /** The host's own families, in the text format (`# HELP`, `# TYPE` and samples); called at each scrape. */
  readonly collect?: () => string;
}

/** Request latency buckets in seconds, from half a millisecond (a cached read) to ten seconds. */
export const LATENCY_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** `{a="x",b="y"}` from label pairs; '' without labels. */
export const labelText = (labels: Readonly<Record<string, string>>): string => {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeLabel(value)}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
};

const number = (value: number): string => (Number.isFinite(value) ? String(value) : value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN');

/** A family's header lines. */
export const familyHeader = (name: string, type: 'counter' | 'gauge' | 'histogram', help: string): string =>
  `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`;

/** A gauge family with one sample. */
export const gaugeText = (name: string, help: string, value: number, labels: Readonly<Record<string, string>> = {}): string =>
  `${familyHeader(name, 'gauge', help)}${name}${labelText(labels)} ${number(value)}\n`;

/** A cumulative histogram: `observe` costs a short scan and no allocation. */
export class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(readonly buckets: readonly number[]) {
    this.counts = buckets.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) {
      if (value <= this.buckets[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }

  /** The `_bucket`, `_sum` and `_count` samples (no header), with extra labels. */
  samples(name: string, labels: Readonly<Record<string, string>> = {}): string {
    let out = '';
    let cumulative = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      cumulative += this.counts[i]!;
      out += `${name}_bucket${labelText({ ...labels, le: String(this.buckets[i]) })} ${cumulative}\n`;
    }
    out += `${name}_bucket${labelText({ ...labels, le: '+Inf' })} ${this.count}\n`;
    out += `${name}_sum${labelText(labels)} ${number(this.sum)}\n`;
    out += `${name}_count${labelText(labels)} ${this.count}\n`;
    return out;
  }
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Requests that matched no route (unknown paths, 414s, parse failures before routing). */
const UNMATCHED = 'unmatched';

interface RouteMethodStats {
  readonly byStatus: Map<number, number>;
  readonly latency: Histogram;
}

/**
 * The server's request metrics: route × method → status counts and a latency histogram. Maps keyed by the
 * route's name and the method, both strings the request already holds: recording allocates nothing once a
 * route, method and status have been seen.
 */
export class RequestMetrics {
  private readonly routes = new Map<string, Map<string, RouteMethodStats>>();

  record(method: string, routeName: string | undefined, status: number, seconds: number): void {
    const route = routeName ?? UNMATCHED;
    const verb = KNOWN_METHODS.has(method) ? method : 'OTHER';
    let byMethod = this.routes.get(route);
    if (byMethod === undefined) this.routes.set(route, (byMethod = new Map()));
    let stats = byMethod.get(verb);
    if (stats === undefined) byMethod.set(verb, (stats = { byStatus: new Map(), latency: new Histogram(LATENCY_BUCKETS) }));
    stats.byStatus.set(status, (stats.byStatus.get(status) ?? 0) + 1);
    stats.latency.observe(seconds);
  }

  text(): string {
    let requests = familyHeader('forgefold_http_requests_total', 'counter', 'HTTP requests answered, by route, method and status.');
    let latency = familyHeader('forgefold_http_request_duration_seconds', 'histogram', 'Time from a request to its reply, by route and method.');
    for (const [route, byMethod] of this.routes) {
      for (const [method, stats] of byMethod) {
        for (const [status, count] of stats.byStatus) requests += `forgefold_http_requests_total${labelText({ route, method, status: String(status) })} ${count}\n`;
        latency += stats.latency.samples('forgefold_http_request_duration_seconds', { route, method });
      }
    }
    return requests + latency;
  }
}

/** Who may read `/-/metrics`. Throws on an entry that is neither an address nor a CIDR block. */
export function metricsAllowList(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.trim().split('/');
    const type = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
    if (type === null || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) throw new RangeError(`not an IP address or CIDR block: '${entry}'`);
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (remote) => {
    if (remote === undefined) return false;
    // An IPv4 client of a dual-stack listener shows as ::ffff:a.b.c.d.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remote);
    if (mapped) return list.check(mapped[1]!, 'ipv4');
    return isIPv4(remote) ? list.check(remote, 'ipv4') : list.check(remote, 'ipv6');
  };
}
