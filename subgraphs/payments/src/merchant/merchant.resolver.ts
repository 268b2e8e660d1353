import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { auditedBy } from '@gateway/audit';
import { RegisterMerchantInput, UpdateMerchantInput } from './merchant.input';
import { merchantNotFound, type MerchantService } from './merchant.service';
import {
  Merchant,
  MerchantKeyRotation,
  MerchantRegistration,
  WebhookSecretRotation,
  toMerchant,
} from './merchant.type';

/**
 * An operator (admin key) or the merchant itself (its API key). Another merchant's key gets
 * MERCHANT_NOT_FOUND, the answer for an unknown id, rather than FORBIDDEN: merchant ids appear
 * in customer-facing places, and a key must not confirm which of them exist.
 */
function requireMerchantOrAdmin(context: SubgraphContext, merchantId: string): void {
  const principal = requirePrincipal(context, ['admin', 'merchant'], 'INVALID_API_KEY');
  if (principal.kind === 'merchant' && principal.id !== merchantId) throw merchantNotFound(merchantId);
}

export function createMerchantResolver(service: MerchantService) {
  @Resolver(() => Merchant)
  class MerchantResolver {
    @Query(() => Merchant, { description: 'A merchant by id (operator or the merchant itself).' })
    async merchant(
      @Arg('id', () => ID, { description: 'Merchant id (mer_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Merchant> {
      requireMerchantOrAdmin(context, id);
      return toMerchant(await service.find(context.em, id));
    }

    @Query(() => Merchant, {
      description:
        "The merchant whose API key calls (a dashboard's first question: whose data is this?). Other credentials: FORBIDDEN.",
    })
    async currentMerchant(@Ctx() context: SubgraphContext): Promise<Merchant> {
      const principal = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
      return toMerchant(await service.find(context.em, principal.id));
    }

    @Mutation(() => MerchantRegistration, {
      description: 'Registers a merchant (operator). Returns the API key and webhook secret once.',
    })
    async registerMerchant(
      @Arg('input', { description: 'The merchant to register.' }) input: RegisterMerchantInput,
      @Ctx() context: SubgraphContext,
    ): Promise<MerchantRegistration> {
      requirePrincipal(context, ['admin']);
      const { merchant, apiKey, webhookSecret } = await service.register(context.em, input, auditedBy(context));
      context.logger.info({ merchant: merchant.id, mode: merchant.mode }, 'merchant registered');
      return { merchant: toMerchant(merchant), apiKey, webhookSecret };
    }

    @Mutation(() => Merchant, {
      description:
        "Changes a merchant's name or webhook URL (operator or the merchant itself), or where it is paid, settlementIban (operator only: a stolen key must not redirect charges).",
    })
    async updateMerchant(
      @Arg('id', () => ID, { description: 'Merchant id (mer_…).' }) id: string,
      @Arg('input', { description: 'The fields to change; omitted ones stay.' }) input: UpdateMerchantInput,
      @Ctx() context: SubgraphContext,
    ): Promise<Merchant> {
      requireMerchantOrAdmin(context, id);
      if (input.settlementIban !== undefined) requirePrincipal(context, ['admin']);
      return toMerchant(await service.update(context.em, id, input, auditedBy(context)));
    }

    @Mutation(() => MerchantKeyRotation, {
      description:
        "Rotates a merchant's API key (operator): the new key is returned once, the old one stops working at once.",
    })
    async rotateMerchantKey(
      @Arg('id', () => ID, { description: 'Merchant id (mer_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<MerchantKeyRotation> {
      requirePrincipal(context, ['admin']);
      const apiKey = await service.rotateKey(context.em, id, auditedBy(context));
      context.logger.info({ merchant: id }, 'merchant key rotated');
      return { apiKey };
    }

    @Mutation(() => WebhookSecretRotation, {
      description:
        "Rotates a merchant's webhook secret (operator or the merchant itself): returned once, the old one stops signing at once.",
    })
    async rotateWebhookSecret(
      @Arg('id', () => ID, { description: 'Merchant id (mer_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<WebhookSecretRotation> {
      requireMerchantOrAdmin(context, id);
      const webhookSecret = await service.rotateWebhookSecret(context.em, id, auditedBy(context));
      context.logger.info({ merchant: id }, 'webhook secret rotated');
      return { webhookSecret };
    }

    @FieldResolver(() => String, {
      nullable: true,
      description: 'Where webhooks are delivered; null when none is set (operator or the merchant itself).',
    })
    webhookUrl(@Root() merchant: Merchant, @Ctx() context: SubgraphContext): string | null {
      requireMerchantOrAdmin(context, merchant.id);
      return merchant.entity.webhookUrl;
    }

    @FieldResolver(() => String, {
      nullable: true,
      description:
        'IBAN the merchant is settled to, electronic format; null when none is set (operator or the merchant itself).',
    })
    settlementIban(@Root() merchant: Merchant, @Ctx() context: SubgraphContext): string | null {
      requireMerchantOrAdmin(context, merchant.id);
      return merchant.entity.settlementIban;
    }
  }
  return MerchantResolver;
}
