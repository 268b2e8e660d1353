import { buildFederatedSchema, type SubgraphContext } from '@gateway/federation';
import type { GraphQLSchema } from 'graphql';
import { MerchantEntity } from './merchant/merchant.entity';
import { createMerchantResolver } from './merchant/merchant.resolver';
import { MerchantService, type PaymentsSettings } from './merchant/merchant.service';
import { toMerchant } from './merchant/merchant.type';

export async function buildPaymentsSchema(settings: PaymentsSettings): Promise<GraphQLSchema> {
  const merchants = new MerchantService(settings);
  return buildFederatedSchema({
    resolvers: [createMerchantResolver(merchants)],
    referenceResolvers: {
      // Another subgraph's reference to a merchant it knows only by id; null for an unknown one.
      // webhookUrl and settlementIban stay behind MerchantResolver's checks whoever asks.
      Merchant: async (reference, context: SubgraphContext) => {
        const merchant = await context.em.findOne(MerchantEntity, { id: reference.id as string });
        return merchant ? toMerchant(merchant) : null;
      },
    },
  });
}
