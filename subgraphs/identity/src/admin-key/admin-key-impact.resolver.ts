import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { vault } from '@gateway/vault';
import { AdminKey } from './admin-key.type';

/**
 * What revoking an admin key ends besides the keys it made (issue 50): its console sessions that
 * are signed in now. The operator console sums them over the key and its lineage in the
 * revocation's confirmation. Admin only, as the admin keys are.
 */
@Resolver(() => AdminKey)
export class AdminKeyImpactResolver {
  @FieldResolver(() => Int, {
    description:
      'Operator console sessions signed in with this key now (not signed out, not expired): they end when it is revoked (admin only).',
  })
  async consoleSessionCount(@Root() key: AdminKey, @Ctx() context: SubgraphContext): Promise<number> {
    requirePrincipal(context, ['admin']);
    if (key.revokedAt) return 0;
    return vault.countLive(context.em, 'operator_session', key.id);
  }
}
