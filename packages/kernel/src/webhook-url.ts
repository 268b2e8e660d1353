import { z } from 'zod';
import { mayTarget, type EgressPolicy } from './egress';
import { rules } from './validation';

/** What a webhook URL is checked against when it is registered: the mode and the egress policy. */
export interface WebhookUrlSettings extends EgressPolicy {
  production: boolean;
}

/**
 * Why a webhook URL is refused at registration, or null. Production refuses at once a literal host
 * it will never call (a private address unless WEBHOOK_PRIVATE_TARGETS, or a forbidden one);
 * development registers it and its deliveries say "target refused". Names are judged on the
 * addresses they resolve to at every delivery (DNS can change after registration).
 */
export function webhookTargetProblem(url: URL, settings: WebhookUrlSettings): string | null {
  if (settings.production && !mayTarget(url.hostname, settings))
    return 'must point to a public address (not loopback, private, link-local or reserved)';
  return null;
}

/** zod rule for a webhook URL: trimmed, at most 2048 characters, http(s) in development, https to a public host in production. */
export function webhookUrlRule(settings: WebhookUrlSettings) {
  return z
    .string()
    .trim()
    .pipe(rules.url(settings.production))
    .superRefine((value, ctx) => {
      // zod runs refinements even when the URL check already failed: parse defensively.
      if (!URL.canParse(value)) return;
      const problem = webhookTargetProblem(new URL(value), settings);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}
