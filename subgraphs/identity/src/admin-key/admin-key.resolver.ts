import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { auditedBy } from '@gateway/audit';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { CreateAdminKeyInput } from './admin-key.input';
import type { AdminKeyService } from './admin-key.service';
import { AdminKey, AdminKeyCreation, toAdminKey } from './admin-key.type';

/** Operators only: an admin principal (the configured ADMIN_KEY or a named key) manages named keys. */
export function createAdminKeyResolver(service: AdminKeyService) {
  @Resolver(() => AdminKey)
  class AdminKeyResolver {
    @Mutation(() => AdminKeyCreation, {
      description:
        'Creates a named admin key (operator): its secret is returned once. Errors: VALIDATION_ERROR, ADMIN_KEY_NAME_TAKEN (a live key has the name, or ADMIN_KEY).',
    })
    async createAdminKey(
      @Arg('input', { description: 'The operator the key is for.' }) input: CreateAdminKeyInput,
      @Ctx() context: SubgraphContext,
    ): Promise<AdminKeyCreation> {
      requirePrincipal(context, ['admin']);
      const { raw, credential } = await service.create(context.em, input, auditedBy(context));
      context.logger.info({ key_id: credential.ownerId, key_name: credential.label }, 'admin key created');
      return { ...toAdminKey(credential), adminKey: raw };
    }

    @Mutation(() => AdminKey, {
      description:
        'Revokes a named admin key at once (operator): the next request with it is refused (401 UNAUTHORIZED). Already revoked: its record again. Errors: ADMIN_KEY_NOT_FOUND.',
    })
    async revokeAdminKey(
      @Arg('id', () => ID, { description: 'adk_…' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<AdminKey> {
      requirePrincipal(context, ['admin']);
      const credential = await service.revoke(context.em, id, auditedBy(context));
      context.logger.info({ key_id: id, key_name: credential.label }, 'admin key revoked');
      return toAdminKey(credential);
    }

    @Query(() => [AdminKey], {
      description: 'The named admin keys, newest first, revoked ones included; never a secret (operator).',
    })
    async adminKeys(@Ctx() context: SubgraphContext): Promise<AdminKey[]> {
      requirePrincipal(context, ['admin']);
      return (await service.list(context.em)).map(toAdminKey);
    }
  }
  return AdminKeyResolver;
}
