import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { auditedBy } from '@gateway/audit';
import { RegisterTppInput, UpdateTppInput } from './tpp.input';
import { tppNotFound, type TppService } from './tpp.service';
import { Tpp, TppRegistration, TppWebhookSecretRotation, TppWebhookTarget, toTpp } from './tpp.type';

/**
 * An operator (admin key) or the TPP itself (its tpk_ token). Another TPP gets TPP_NOT_FOUND,
 * the answer for an unknown id, rather than FORBIDDEN: a token must not confirm which TPP ids exist.
 */
export function requireTppOrAdmin(context: SubgraphContext, tppId: string): void {
  const principal = requirePrincipal(context, ['admin', 'tpp'], 'INVALID_API_KEY');
  if (principal.kind === 'tpp' && principal.id !== tppId) throw tppNotFound(tppId);
}

export function createTppResolver(service: TppService) {
  @Resolver(() => Tpp)
  class TppResolver {
    @Query(() => Tpp, { description: 'A TPP by id (operator or the TPP itself).' })
    async tpp(
      @Arg('id', () => ID, { description: 'TPP id (tpp_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Tpp> {
      requireTppOrAdmin(context, id);
      return toTpp(await service.find(context.em, id));
    }

    @Mutation(() => TppRegistration, {
      description: 'Registers a TPP (operator). Returns the TPP access token and webhook secret once.',
    })
    async registerTpp(
      @Arg('input', { description: 'The TPP to register.' }) input: RegisterTppInput,
      @Ctx() context: SubgraphContext,
    ): Promise<TppRegistration> {
      requirePrincipal(context, ['admin']);
      const { tpp, tppAccessToken, webhookSecret } = await service.register(context.em, input, auditedBy(context));
      context.logger.info({ tpp: tpp.id }, 'tpp registered');
      return { tpp: toTpp(tpp), tppAccessToken, webhookSecret };
    }

    @Mutation(() => Tpp, { description: "Changes a TPP's name or webhook URL (operator or the TPP itself)." })
    async updateTpp(
      @Arg('id', () => ID, { description: 'TPP id (tpp_…).' }) id: string,
      @Arg('input', { description: 'The changes; omitted fields stay as they are.' }) input: UpdateTppInput,
      @Ctx() context: SubgraphContext,
    ): Promise<Tpp> {
      requireTppOrAdmin(context, id);
      const tpp = await service.update(context.em, id, input, auditedBy(context));
      context.logger.info({ tpp: id }, 'tpp updated');
      return toTpp(tpp);
    }

    @Mutation(() => TppWebhookSecretRotation, {
      description:
        "Rotates a TPP's webhook secret (operator or the TPP itself): returned once, the old one stops signing at once.",
    })
    async rotateTppWebhookSecret(
      @Arg('id', () => ID, { description: 'TPP id (tpp_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<TppWebhookSecretRotation> {
      requireTppOrAdmin(context, id);
      const webhookSecret = await service.rotateWebhookSecret(context.em, id, auditedBy(context));
      context.logger.info({ tpp: id }, 'tpp webhook secret rotated');
      return { webhookSecret };
    }

    @Query(() => TppWebhookTarget, {
      nullable: true,
      description:
        "Where a TPP's Open Banking webhooks go and the sealed secret that signs them; null for an unknown TPP. Service calls only (the webhook dispatcher).",
    })
    async tppWebhookTarget(
      @Arg('tppId', () => ID, { description: 'TPP id (tpp_…).' }) tppId: string,
      @Ctx() context: SubgraphContext,
    ): Promise<TppWebhookTarget | null> {
      requirePrincipal(context, ['service']);
      const target = await service.webhookTarget(context.em, tppId);
      return target ? { tppId, ...target } : null;
    }

    @FieldResolver(() => String, {
      nullable: true,
      description: 'Where Open Banking webhooks are delivered; null when none is set (operator or the TPP itself).',
    })
    webhookUrl(@Root() tpp: Tpp, @Ctx() context: SubgraphContext): string | null {
      requireTppOrAdmin(context, tpp.id);
      return tpp.entity.webhookUrl;
    }
  }
  return TppResolver;
}
