import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { auditedBy } from '@gateway/audit';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { CreateAdminKeyInput } from './admin-key.input';
import type { AdminKeyService } from './admin-key.service';
import { AdminKey, AdminKeyCreation, AdminKeyRevocation, toAdminKey, toAdminKeyRevocation } from './admin-key.type';

/** Operators only: an admin principal (the configured ADMIN_KEY or a named key) manages named keys. */
export function createAdminKeyResolver(service: AdminKeyService) {
  @Resolver(() => AdminKey)
  class AdminKeyResolver {
    @Mutation(() => AdminKeyCreation, {
      description:
        'Creates a named admin key (operator), made by the calling key (createdBy): its secret (adm_…) is returned once. Errors: VALIDATION_ERROR (name: 3-40 characters of a-z 0-9 . _ -, never ADMIN_KEY in any spelling), ADMIN_KEY_NAME_TAKEN (a live key has the name).',
    })
    async createAdminKey(
      @Arg('input', { description: 'The operator the key is for.' }) input: CreateAdminKeyInput,
      @Ctx() context: SubgraphContext,
    ): Promise<AdminKeyCreation> {
      requirePrincipal(context, ['admin']);
      const { raw, credential } = await service.create(context.em, input, auditedBy(context));
      context.logger.info({ key_id: credential.ownerId, key_name: credential.label }, 'admin key created');
      return { ...toAdminKey(credential), createdBy: credential.createdBy!, adminKey: raw };
    }

    @Mutation(() => AdminKeyRevocation, {
      description:
        'Revokes a named admin key at once (operator), with every key it created and theirs, in one transaction, each audited: the next request with any of them is refused (401 UNAUTHORIZED) and their open subscriptions close within 5 s. revokedWith lists them. Already revoked: its record again (and what of its lineage was still live is revoked). Errors: ADMIN_KEY_NOT_FOUND.',
    })
    async revokeAdminKey(
      @Arg('id', () => ID, { description: 'adk_…' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<AdminKeyRevocation> {
      requirePrincipal(context, ['admin']);
      const revoked = await service.revoke(context.em, id, auditedBy(context));
      context.logger.info(
        {
          key_id: id,
          key_name: revoked.credential.label,
          revoked_with: revoked.lineage.map((key) => key.ownerId),
        },
        'admin key revoked',
      );
      return toAdminKeyRevocation(revoked);
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
