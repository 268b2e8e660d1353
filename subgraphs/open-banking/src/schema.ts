import { buildFederatedSchema, type SubgraphContext } from '@gateway/federation';
import type { GraphQLSchema } from 'graphql';
import { TppEntity } from './tpp/tpp.entity';
import { createTppResolver } from './tpp/tpp.resolver';
import { TppService, type OpenBankingSettings } from './tpp/tpp.service';
import { toTpp } from './tpp/tpp.type';

export async function buildOpenBankingSchema(settings: OpenBankingSettings): Promise<GraphQLSchema> {
  const tpps = new TppService(settings);
  return buildFederatedSchema({
    resolvers: [createTppResolver(tpps)],
    referenceResolvers: {
      // Another subgraph's reference to a TPP it knows only by id; null for an unknown one.
      // webhookUrl stays behind TppResolver's check whoever asks.
      Tpp: async (reference, context: SubgraphContext) => {
        const tpp = await context.em.findOne(TppEntity, { id: reference.id as string });
        return tpp ? toTpp(tpp) : null;
      },
    },
  });
}
