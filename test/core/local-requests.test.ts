/**
 * `UrlBlocker#validate_local_request` on a literal host, through a cluster's `api_url` (`public_url`): the address
 * `Addrinfo.getaddrinfo` makes of a numeric host (glibc's `inet_aton` forms; IPv4-mapped IPv6 read as IPv4), then
 * 14.7's checks in order. Each expected reason was compared with glibc's own `getaddrinfo` (`AI_NUMERICHOST`) on the
 * same host; a host it does not read as an address is a name, which is not resolved here and passes. 14.7 has no
 * check for the shared address space (100.64.0.0/10) nor the limited broadcast address (later versions add both).
 */
import * as E from 'fp-ts/lib/Either.js';
import { forgefold, type ForgefoldEvent } from '@forgefold/core';
import { describe, expect, it } from 'vitest';
import { AT, memberAdded, projectCreated, stateOf, userCreated } from '../specs/spec.js';

const given: ForgefoldEvent[] = [userCreated(2, 'maint'), projectCreated(1, 'app', 10), memberAdded(1, { project: 1 }, 2, 40)];
const state = stateOf(given);

const LOCALHOST = 'Requests to localhost are not allowed';
const LOOPBACK = 'Requests to loopback addresses are not allowed';
const LOCAL_NETWORK = 'Requests to the local network are not allowed';
const LINK_LOCAL = 'Requests to the link local network are not allowed';

/** The cluster's `api_url` message for a URL with this host, or null when it is added. */
const refusal = (host: string): string | null => {
  const command = { type: 'AddCluster', project_id: 1, name: 'prod', platform_kubernetes: { api_url: `https://${host}:6443`, token: { ciphertext: 'v1:t', blank: false }, namespace: 'app' } } as const;
  const decision = forgefold.decider.decide({ command, actor: { userId: 2, origin: 'api' }, at: AT }, state);
  if (E.isRight(decision)) return null;
  const errors = (decision.left as { errors?: Record<string, string[]> }).errors ?? {};
  return errors['platform_kubernetes.api_url']?.[0]?.replace(/^is blocked: /, '') ?? JSON.stringify(decision.left);
};

describe('local requests on a literal host (UrlBlocker, 14.7)', () => {
  it.each([
    ['127.0.0.1', LOCALHOST],
    ['127.1', LOCALHOST],
    ['0x7f.1', LOCALHOST],
    ['0X7F.0.0.1', LOCALHOST],
    ['2130706433', LOCALHOST],
    ['0177.0.0.1', LOCALHOST],
    ['017700000001', LOCALHOST],
    ['0', LOCALHOST],
    ['0.0.0.0', LOCALHOST],
    ['localhost', LOCALHOST],
    ['[::]', LOCALHOST],
    ['[::1]', LOCALHOST],
    ['[0:0:0:0:0:0:0:1]', LOCALHOST],
    ['[::ffff:127.0.0.1]', LOCALHOST],
    ['127.0.0.2', LOOPBACK],
    ['127.255.255.255', LOOPBACK],
    ['[::ffff:7f00:2]', LOOPBACK],
    ['10.0.0.1', LOCAL_NETWORK],
    ['012.1', LOCAL_NETWORK],
    ['172.16.0.1', LOCAL_NETWORK],
    ['172.31.255.255', LOCAL_NETWORK],
    ['192.168.0.1', LOCAL_NETWORK],
    ['[fc00::1]', LOCAL_NETWORK],
    ['[fd12:3456::1]', LOCAL_NETWORK],
    ['[fec0::1]', LOCAL_NETWORK],
    ['169.254.169.254', LINK_LOCAL],
    ['[fe80::]', LINK_LOCAL],
    ['[febf::1]', LINK_LOCAL],
    ['[::ffff:169.254.0.1]', LINK_LOCAL],
    ['172.15.255.255', null],
    ['172.32.0.1', null],
    ['100.64.0.1', null],
    ['255.255.255.255', null],
    ['[::127.0.0.1]', null],
    ['[fe7f::1]', null],
    ['[ff02::1]', null],
    // Not numeric for `inet_aton` (8 is no octal digit; a trailing dot; a fifth part): names, not resolved here.
    ['08.1', null],
    ['127.0.0.1.', null],
    ['127.0.0.0.1', null],
    ['0x100.1', null],
  ])('%s', (host, reason) => {
    expect(refusal(host)).toBe(reason);
  });

  // `validate_hostname` before any of these: an IP address (`IPAddress.valid?`) or a host starting with a letter or
  // digit. A bracketed host of colons, hex digits and dots that is no IPv6 address is neither.
  it.each([':::', '::1::', ':1', '::1.2.3', '::01.2.3.4'])('[%s] is no IP address', (host) => {
    expect(refusal(`[${host}]`)).toBe('Hostname or IP address invalid');
  });
});
