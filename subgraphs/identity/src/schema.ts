import { buildFederatedSchema, type SubgraphContext } from '@gateway/federation';
import type { GraphQLSchema } from 'graphql';
import { createAdminKeyResolver } from './admin-key/admin-key.resolver';
import { AdminKeyImpactResolver } from './admin-key/admin-key-impact.resolver';
import { AdminKeyService } from './admin-key/admin-key.service';
import { AliasEntity } from './alias/alias.entity';
import { createAuditLogResolver } from './audit/audit-log.resolver';
import { createAliasResolver } from './alias/alias.resolver';
import { AliasService } from './alias/alias.service';
import { toAlias } from './alias/alias.type';
import { OperatorSessionResolver } from './operator-session/operator-session.resolver';
import { createOtpGuardResolver } from './otp-guard/otp-guard.resolver';
import { OtpGuardService } from './otp-guard/otp-guard.service';

export async function buildIdentitySchema(): Promise<GraphQLSchema> {
  const service = new AliasService();
  return buildFederatedSchema({
    resolvers: [
      createAliasResolver(service),
      createOtpGuardResolver(new OtpGuardService()),
      createAuditLogResolver(),
      createAdminKeyResolver(new AdminKeyService()),
      AdminKeyImpactResolver,
      OperatorSessionResolver,
    ],
    referenceResolvers: {
      // Another subgraph's reference to an alias it knows only by handle; null for an unknown one.
      Alias: async (reference, context: SubgraphContext) => {
        const alias = await context.em.findOne(AliasEntity, { handle: reference.handle as string });
        return alias ? toAlias(alias) : null;
      },
    },
  });
}
