import { z } from 'zod';
import { egressTargetProblem, refineEgressTarget, type EgressPolicy } from './egress';
import { rules } from './validation';

/** What a webhook URL is checked against when it is registered: the mode and the egress policy. */
export interface WebhookUrlSettings extends EgressPolicy {
  production: boolean;
}

/**
 * Why a webhook URL is refused at registration because of its host, or null: the egress check
 * every URL the gateway calls goes through (egressTargetProblem), in every mode. A literal host
 * it will never call (a private address unless PRIVATE_TARGETS, or a forbidden one) is refused
 * at once; names are judged on the addresses they resolve to at every delivery (DNS can change
 * after registration).
 */
export function webhookTargetProblem(url: URL, settings: WebhookUrlSettings): string | null {
  return egressTargetProblem(url, settings);
}

/** zod rule for a webhook URL: trimmed, at most 2048 characters, http(s) in development, https in production, to a host the egress policy allows. */
export function webhookUrlRule(settings: WebhookUrlSettings) {
  return z.string().trim().pipe(rules.url(settings.production)).superRefine(refineEgressTarget(settings));
}
