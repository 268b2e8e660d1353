import type { Knex } from '@mikro-orm/knex';
import type { ServiceClient } from '@gateway/federation';
import { ID_PREFIX, openSealedSecret } from '@gateway/kernel';
import { deliveries, type MerchantTarget } from './delivery.repository';

/** Where a delivery goes and the secret that signs it, as read for one attempt. */
export interface DeliveryTarget {
  url: string | null;
  secret: string | null;
}

/** The current target of an event for its audience; null for an audience that does not exist. */
export type TargetLookup = (audienceId: string, aggregateId: string) => Promise<DeliveryTarget | null>;

const TPP_WEBHOOK_TARGET = `query TppWebhookTarget($tppId: ID!) { tppWebhookTarget(tppId: $tppId) { url sealedSecret } }`;

/** A merchant's stored target as an attempt uses it: the session's URL first, the secret opened to sign. */
export const openMerchantTarget = (row: MerchantTarget, platformSecret: string): DeliveryTarget => ({
  url: row.session_url ?? row.merchant_url,
  secret: openSealedSecret(row.sealed, platformSecret),
});

/** Open Banking events name a TPP as their audience; everything else is a merchant's. */
export const isTppAudience = (audienceId: string): boolean => audienceId.startsWith(`${ID_PREFIX.tpp}_`);

/**
 * One lookup for both audiences, read afresh for every attempt (no cache: a rotated secret or a
 * changed URL applies to the very next attempt). A merchant's target is in this subgraph's own
 * schema (the session's URL first, else the merchant's). A TPP's is open-banking's: asked through
 * the router as the payments service, the secret still sealed with the platform secret, so the
 * raw secret never crosses the wire and is opened only here, to sign.
 */
export function createTargetLookup(options: { knex: Knex; call: ServiceClient; platformSecret: string }): TargetLookup {
  const { knex, call, platformSecret } = options;
  return async (audienceId, aggregateId) => {
    if (isTppAudience(audienceId)) {
      const { tppWebhookTarget } = await call<{
        tppWebhookTarget: { url: string | null; sealedSecret: string } | null;
      }>(TPP_WEBHOOK_TARGET, { tppId: audienceId });
      if (!tppWebhookTarget) return null;
      return { url: tppWebhookTarget.url, secret: openSealedSecret(tppWebhookTarget.sealedSecret, platformSecret) };
    }
    const row = await deliveries.merchantTargetOf(knex, audienceId, aggregateId);
    return row ? openMerchantTarget(row, platformSecret) : null;
  };
}
