import { buildFederatedSchema, type SubgraphContext } from '@gateway/federation';
import type { GraphQLSchema } from 'graphql';
import { createBankResolver } from './bank/bank.resolver';
import { createBankSuspensionResolver } from './bank/bank-suspension.resolver';
import { BankDirectoryResolver } from './bank/bank-directory.resolver';
import { BankService, type BanksSettings } from './bank/bank.service';
import { BankEntity } from './bank/bank.entity';
import { toBank } from './bank/bank.type';
import { createBankCredentialResolver } from './bank-credential/bank-credential.resolver';
import { BankCredentialService } from './bank-credential/bank-credential.service';
import { DEFAULT_INTERNAL_KEY_GRACE_SECONDS } from './config';

export async function buildBanksSchema(settings: BanksSettings): Promise<GraphQLSchema> {
  const service = new BankService(settings);
  const credentials = new BankCredentialService({
    platformSecret: settings.platformSecret,
    internalKeyGraceSeconds: settings.internalKeyGraceSeconds ?? DEFAULT_INTERNAL_KEY_GRACE_SECONDS,
  });
  return buildFederatedSchema({
    resolvers: [
      createBankResolver(service),
      createBankCredentialResolver(credentials),
      createBankSuspensionResolver(service),
      BankDirectoryResolver,
    ],
    referenceResolvers: {
      // Another subgraph's reference to a bank it knows only by handle; null for an unknown one.
      Bank: async (reference, context: SubgraphContext) => {
        const handle = reference.handle as string;
        const bank = await context.em.findOne(BankEntity, { handle });
        return bank ? toBank(bank) : null;
      },
    },
  });
}
