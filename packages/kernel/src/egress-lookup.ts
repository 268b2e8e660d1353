import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { mayConnectTo, TARGET_REFUSED, type EgressPolicy } from './egress';

/** A name resolved to an address the egress policy refuses: the connection is never made. */
export class EgressRefusedError extends Error {
  readonly code = 'EGRESS_TARGET_REFUSED';
  constructor() {
    super(TARGET_REFUSED);
    this.name = 'EgressRefusedError';
  }
}

/** Whether an error (or the cause an HTTP client wrapped it in) is the guarded lookup's refusal. */
export function isEgressRefusal(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (current instanceof EgressRefusedError) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * DNS lookup for every outgoing connection of the gateway (webhook deliveries, bank-core calls):
 * the connection goes to an address checked here, so a name that resolves (or is re-pointed, DNS
 * rebinding) to an address the policy refuses is never reached. One refused address among several
 * refuses the name: which one the socket would try is not ours to pick. Literal hosts never reach
 * a lookup: callers judge them first (mayTarget).
 */
export function guardedLookup(policy: EgressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (addresses.some((entry) => !mayConnectTo(entry.address, policy)))
        return callback(new EgressRefusedError() as NodeJS.ErrnoException, '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
