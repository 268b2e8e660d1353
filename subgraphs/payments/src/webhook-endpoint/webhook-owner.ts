import type { EntityManager } from '@mikro-orm/postgresql';
import { requirePrincipal, type ServiceClient, type SubgraphContext } from '@gateway/federation';
import { merchantLivemode } from '@gateway/kernel';
import { MerchantEntity } from '../merchant/merchant.entity';

/**
 * Whose endpoints and events a request sees: the calling merchant (API key) or TPP (tpk_ token),
 * in its world, with its primary endpoint (the webhook_url; null when none is set).
 */
export interface WebhookOwner {
  audienceId: string;
  audience: 'merchant' | 'tpp';
  livemode: boolean;
  primary: { url: string; createdAt: Date } | null;
}

const TPP_PRIMARY = `query TppPrimaryEndpoint($tppId: ID!) { tppWebhookTarget(tppId: $tppId) { url livemode createdAt } }`;

/**
 * The caller as an owner of webhook endpoints. A merchant's world is its key's; a TPP's is its
 * mode, which open-banking holds (asked through the router, as the dispatcher asks its target).
 */
export async function webhookOwnerOf(context: SubgraphContext, call: ServiceClient): Promise<WebhookOwner> {
  const principal = requirePrincipal(context, ['merchant', 'tpp'], 'INVALID_API_KEY');
  const audienceId = principal.id!;
  if (principal.kind === 'merchant') {
    const merchant = await (context.em as EntityManager).findOne(MerchantEntity, { id: audienceId });
    return {
      audienceId,
      audience: 'merchant',
      livemode: merchantLivemode(principal),
      primary: merchant?.webhookUrl ? { url: merchant.webhookUrl, createdAt: merchant.createdAt } : null,
    };
  }
  const { tppWebhookTarget: tpp } = await call<{
    tppWebhookTarget: { url: string | null; livemode: boolean; createdAt: string } | null;
  }>(TPP_PRIMARY, { tppId: audienceId });
  return {
    audienceId,
    audience: 'tpp',
    livemode: tpp?.livemode ?? true,
    primary: tpp?.url ? { url: tpp.url, createdAt: new Date(tpp.createdAt) } : null,
  };
}
