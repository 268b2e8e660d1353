import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { auditedBy } from '@gateway/audit';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { requireBankOrAdmin } from '../bank/bank.resolver';
import type { BankCredentialService } from './bank-credential.service';
import { BankKeyRevocation, InternalKeyRotation } from './bank-credential.type';

/** Containment of a bank's leaked credentials (API-CONTRACT "Operator controls"). */
export function createBankCredentialResolver(service: BankCredentialService) {
  @Resolver()
  class BankCredentialResolver {
    @Mutation(() => BankKeyRevocation, {
      description:
        "Revokes a bank's key at once (operator): its next request is refused with INVALID_BANK_KEY. The operator then gives the bank a new one with rotateBankKey. Errors: BANK_NOT_REGISTERED.",
    })
    async revokeBankKey(
      @Arg('handle', { description: 'Bank handle.' }) handle: string,
      @Ctx() context: SubgraphContext,
    ): Promise<BankKeyRevocation> {
      requirePrincipal(context, ['admin']);
      const revokedKeys = await service.revokeBankKey(context.em, handle, auditedBy(context));
      context.logger.warn({ bank: handle, revoked_keys: revokedKeys }, 'bank key revoked by an operator');
      return { bankHandle: handle, revokedKeys };
    }

    @Mutation(() => InternalKeyRotation, {
      description:
        "Rotates a bank's internal key (the bank itself or an operator): the new key is returned once and presented on every core call from now on; the previous key is still accepted on the core's callbacks until previousKeyExpiresAt (INTERNAL_KEY_GRACE_SECONDS). The sandbox core's key is not touched. Errors: BANK_NOT_REGISTERED, FORBIDDEN (another bank).",
    })
    async rotateInternalKey(
      @Arg('handle', { description: 'Bank handle.' }) handle: string,
      @Ctx() context: SubgraphContext,
    ): Promise<InternalKeyRotation> {
      requireBankOrAdmin(context, handle, true);
      const rotation = await service.rotateInternalKey(context.em, handle, auditedBy(context));
      context.logger.info(
        { bank: handle, by: context.principal.kind, previous_key_expires_at: rotation.previousKeyExpiresAt },
        'internal key rotated',
      );
      return rotation;
    }
  }
  return BankCredentialResolver;
}
