import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { mayConnectTo, mayTarget, TARGET_REFUSED, type EgressPolicy } from '@gateway/kernel';

/** What a delivery is checked against before every attempt. */
export interface DeliverySettings extends EgressPolicy {
  /** https only. */
  production: boolean;
}

/**
 * Why a delivery must not go to `url` now, or null. Checked before every attempt, because the
 * URL was valid when registered but the mode or the rules may have changed since. A literal
 * host is judged here (no connection is made to a refused one); a name on the addresses it
 * resolves to, as the connection is made (guardedLookup).
 */
export function deliveryTargetProblem(url: string, settings: DeliverySettings): string | null {
  if (!URL.canParse(url)) return 'webhook URL is not a valid URL';
  const parsed = new URL(url);
  if (settings.production && parsed.protocol !== 'https:') return 'webhook URL must be https in production mode';
  if (!settings.production && parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return 'webhook URL must be http(s)';
  return mayTarget(parsed.hostname, settings) ? null : TARGET_REFUSED;
}

/** A name resolved to an address the policy refuses: the connection is never made. */
export class RefusedTargetError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
  constructor() {
    super(TARGET_REFUSED);
  }
}

/**
 * DNS lookup for every delivery: the connection goes to an address checked here, so a name that
 * resolves (or is re-pointed, DNS rebinding) to an address the policy refuses is never reached.
 * One refused address among several refuses the name: which one the socket would try is not ours to pick.
 */
export function guardedLookup(policy: EgressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (addresses.some((entry) => !mayConnectTo(entry.address, policy)))
        return callback(new RefusedTargetError() as NodeJS.ErrnoException, '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
