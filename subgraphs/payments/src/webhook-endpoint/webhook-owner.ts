import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServiceClient, SubgraphContext } from '@gateway/federation';
import { merchantLivemode } from '@gateway/kernel';
import { MerchantEntity } from '../merchant/merchant.entity';
import { webhookAudienceOf, type WebhookAudience } from '../webhook/webhook-audience';

/**
 * Whose endpoints and events a request sees: the calling merchant (API key) or TPP (tpk_ token),
 * in its world, with its primary endpoint (the webhook_url; null when none is set); or the
 * operator (an admin key) or a bank (its bank key), in both worlds and without a primary endpoint.
 */
export interface WebhookOwner {
  audienceId: string;
  audience: WebhookAudience;
  /**
   * The world every query is scoped to: a merchant's or TPP's credential has one. Null for the
   * operator and banks, whose credentials have none: each of their endpoints is in the world it
   * was created for (`mode`), and they see both worlds' endpoints and events, each marked.
   */
  livemode: boolean | null;
  primary: { url: string; createdAt: Date } | null;
}

const TPP_PRIMARY = `query TppPrimaryEndpoint($tppId: ID!) { tppWebhookTarget(tppId: $tppId) { url livemode createdAt } }`;

/**
 * The caller as an owner of webhook endpoints. A merchant's world is its key's; a TPP's is its
 * mode, which open-banking holds (asked through the router, as the dispatcher asks its target).
 */
export async function webhookOwnerOf(context: SubgraphContext, call: ServiceClient): Promise<WebhookOwner> {
  const { audienceId, audience } = webhookAudienceOf(context);
  if (audience === 'operator' || audience === 'bank') return { audienceId, audience, livemode: null, primary: null };
  if (audience === 'merchant') {
    const merchant = await (context.em as EntityManager).findOne(MerchantEntity, { id: audienceId });
    return {
      audienceId,
      audience,
      livemode: merchantLivemode(context.principal),
      primary: merchant?.webhookUrl ? { url: merchant.webhookUrl, createdAt: merchant.createdAt } : null,
    };
  }
  const { tppWebhookTarget: tpp } = await call<{
    tppWebhookTarget: { url: string | null; livemode: boolean; createdAt: string } | null;
  }>(TPP_PRIMARY, { tppId: audienceId });
  return {
    audienceId,
    audience,
    livemode: tpp?.livemode ?? true,
    primary: tpp?.url ? { url: tpp.url, createdAt: new Date(tpp.createdAt) } : null,
  };
}
