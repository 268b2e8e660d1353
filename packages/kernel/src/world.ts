import type { Principal } from './principal';

/**
 * The world an object lives in (API-CONTRACT "Test mode"): a test object's money moves only at
 * test cores and it is seen only with a test credential; a live object's the other way round.
 */
export type World = 'live' | 'test';

/** The world of an object that carries `livemode`. */
export const worldOf = (object: { livemode: boolean }): World => (object.livemode ? 'live' : 'test');

/**
 * Whether a merchant credential is live: the router puts the key's mode in its scopes (a key's
 * prefix, mk_live_ or mk_test_, and its merchant's mode are one, fixed at registration).
 */
export const merchantLivemode = (principal: Pick<Principal, 'scopes'>): boolean =>
  principal.scopes?.includes('live') === true;
