import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateNetworkHost, webhookTargetProblem } from '@gateway/kernel';

/**
 * Why a delivery must not go to `url` now, or null. Checked before every attempt, because the
 * URL was valid when registered but the mode or the rules may have changed since. Literal hosts
 * only; names are checked on the addresses they resolve to (guardedLookup).
 */
export function deliveryTargetProblem(url: string, production: boolean): string | null {
  if (!URL.canParse(url)) return 'webhook URL is not a valid URL';
  const parsed = new URL(url);
  if (production && parsed.protocol !== 'https:') return 'webhook URL must be https in production mode';
  if (!production && parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'webhook URL must be http(s)';
  return webhookTargetProblem(parsed, production);
}

export class UnsafeTargetError extends Error {
  readonly code = 'WEBHOOK_TARGET_UNSAFE';
  constructor(hostname: string, address: string) {
    super(`${hostname} resolves to ${address}, a loopback, private or link-local address`);
  }
}

/**
 * DNS lookup for production deliveries: the connection goes to the address checked here, so a
 * name that resolves (or is re-pointed, DNS rebinding) to a private address is never reached.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const unsafe = addresses.find((entry) => isPrivateNetworkHost(entry.address));
    if (unsafe) return callback(new UnsafeTargetError(hostname, unsafe.address) as NodeJS.ErrnoException, '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    return callback(null, first.address, first.family);
  });
};
