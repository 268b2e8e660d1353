import { refineEgressTarget, rules, type EgressPolicy, type z } from '@gateway/kernel';

/** What a core URL is checked against when a bank registers it or changes it: the mode and the egress policy (PRIVATE_TARGETS). */
export interface CoreUrlSettings extends EgressPolicy {
  production: boolean;
}

/** Two core URLs name one core when they are equal but for trailing slashes. */
export const sameCore = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** A core base URL is a plain origin plus optional path: no credentials, query or fragment. */
export function assertCoreBaseUrlShape(value: string, ctx: z.RefinementCtx): void {
  // zod runs refinements even after the URL rule failed; that failure is already reported.
  if (!URL.canParse(value)) return;
  const url = new URL(value);
  if (url.username || url.password || url.search || url.hash) {
    ctx.addIssue({ code: 'custom', message: 'must not carry credentials, a query or a fragment' });
  }
}

/**
 * core_base_url and sandbox_core_base_url, at registration and at every change: http(s) (https in
 * production), the plain shape, and the egress check every URL the gateway calls goes through
 * (kernel egressTargetProblem, as webhooks): a literal host on loopback, a private or link-local
 * network only with PRIVATE_TARGETS, cloud metadata and reserved ranges never. A DNS name is
 * judged on what it resolves to at every connection (the bank-core client's guarded lookup).
 */
export const coreUrlRule = (settings: CoreUrlSettings) =>
  rules.url(settings.production).superRefine(assertCoreBaseUrlShape).superRefine(refineEgressTarget(settings));
