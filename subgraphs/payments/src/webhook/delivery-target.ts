import type { Knex } from '@mikro-orm/knex';
import type { ServiceClient } from '@gateway/federation';
import { openSealedSecret } from '@gateway/kernel';
import { deliveries, type EndpointTarget, type MerchantTarget, type TargetRead } from './delivery.repository';
import { isPrimaryEndpointId } from './event-kinds';
import { audienceOf } from './webhook-audience';

/** Where a delivery goes and the secret that signs it, as read for one attempt. */
export interface DeliveryTarget {
  url: string | null;
  secret: string | null;
  /** Why no attempt is made and none will be (an endpoint disabled or deleted since): the delivery fails at once. */
  closed?: string;
}

/** What a delivery says of where it goes, and its target when the statement that claimed it read it. */
export interface DeliveryAddress {
  audience_id: string;
  endpoint_id: string;
  aggregate_id: string;
  target_read?: TargetRead;
}

/** The current target of a delivery; null for an audience that does not exist. */
export type TargetLookup = (delivery: DeliveryAddress) => Promise<DeliveryTarget | null>;

const TPP_WEBHOOK_TARGET = `query TppWebhookTarget($tppId: ID!) { tppWebhookTarget(tppId: $tppId) { url sealedSecret } }`;

/**
 * A merchant's stored target as an attempt uses it: the session's URL first, the secret opened to
 * sign; without a URL nothing is signed (no attempt is made), so the secret stays sealed: every
 * event of a merchant without one is taken in all the same (the event log).
 */
export const openMerchantTarget = (row: MerchantTarget, platformSecret: string): DeliveryTarget => {
  const url = row.session_url ?? row.merchant_url;
  return { url, secret: url === null ? null : openSealedSecret(row.sealed, platformSecret) };
};

/** A further endpoint's target as the intake read it: its URL and secret opened to sign. */
export const openEndpointTarget = (url: string, sealed: string, platformSecret: string): DeliveryTarget => ({
  url,
  secret: openSealedSecret(sealed, platformSecret),
});

/**
 * One lookup for every audience and endpoint, read afresh for every attempt (no cache: a rotated secret or a
 * changed URL applies to the very next attempt): by the statement that claimed the delivery when it
 * did (`target_read`), else here. A further endpoint is a row of this schema (the
 * operator's and banks' endpoints are all such rows). A merchant's primary target is in this subgraph's own
 * schema (the session's URL first, else the merchant's). A TPP's is open-banking's: asked through
 * the router as the payments service, the secret still sealed with the platform secret, so the
 * raw secret never crosses the wire and is opened only here, to sign.
 */
export function createTargetLookup(options: { knex: Knex; call: ServiceClient; platformSecret: string }): TargetLookup {
  const { knex, call, platformSecret } = options;
  return async ({ audience_id: audienceId, endpoint_id: endpointId, aggregate_id: aggregateId, target_read: read }) => {
    if (!isPrimaryEndpointId(endpointId)) {
      const endpoint = read && 'endpoint' in read ? read.endpoint : await deliveries.endpointTargetOf(knex, endpointId);
      return openFurtherEndpoint(endpoint ?? null, platformSecret);
    }
    if (audienceOf(audienceId) === 'tpp') {
      const { tppWebhookTarget } = await call<{
        tppWebhookTarget: { url: string | null; sealedSecret: string } | null;
      }>(TPP_WEBHOOK_TARGET, { tppId: audienceId });
      if (!tppWebhookTarget) return null;
      return { url: tppWebhookTarget.url, secret: openSealedSecret(tppWebhookTarget.sealedSecret, platformSecret) };
    }
    const row =
      read && 'merchant' in read ? read.merchant : await deliveries.merchantTargetOf(knex, audienceId, aggregateId);
    return row ? openMerchantTarget(row, platformSecret) : null;
  };
}

/** A further endpoint's target for an attempt: none made (closed) when it was deleted or disabled since the event. */
function openFurtherEndpoint(endpoint: EndpointTarget | null, platformSecret: string): DeliveryTarget {
  if (!endpoint) return { url: null, secret: null, closed: 'webhook endpoint deleted' };
  if (endpoint.status !== 'ENABLED') return { url: endpoint.url, secret: null, closed: 'webhook endpoint disabled' };
  return { url: endpoint.url, secret: openSealedSecret(endpoint.secret_sealed, platformSecret) };
}
