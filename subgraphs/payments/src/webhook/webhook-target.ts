import { mayTarget, TARGET_REFUSED, type EgressPolicy } from '@gateway/kernel';

// The guarded lookup is the kernel's: bank-core calls connect through the same one.
export { EgressRefusedError as RefusedTargetError, guardedLookup } from '@gateway/kernel';

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
