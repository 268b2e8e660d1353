import ipaddr from 'ipaddr.js';
import { memoized } from './memoized';

// Every public request is limited by this key: the same few addresses come again and again, and
// parsing one (twice: isValid, then process) cost more than the rest of the rate-limit check.
const keyOfAddress = memoized(10_000, (ip) => {
  if (!ipaddr.isValid(ip)) return 'unknown';
  const parsed = ipaddr.process(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
});

/**
 * Who a per-client limit counts: an IPv4 address as it is (an IPv4 inside IPv6, ::ffff:a.b.c.d,
 * as that IPv4), an IPv6 address by its /64, which one subscriber is given whole (2^64 addresses
 * would otherwise be 2^64 clients). Anything unreadable (or none) is one client, 'unknown'.
 */
export function clientKeyOf(ip: string | null | undefined): string {
  return ip ? keyOfAddress(ip) : 'unknown';
}
