import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { pageInfoOf, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { CreateConsentInput } from './consent.input';
import type { ConsentService } from './consent.service';
import { Consent, ConsentConnection, toConsent } from './consent.type';

export function createConsentResolver(service: ConsentService) {
  const base = service.settings.publicBaseUrl;

  @Resolver(() => Consent)
  class ConsentResolver {
    @Mutation(() => Consent, {
      description:
        'Creates a consent request (POST /ob/consents): a spec TPP with its tpk_ token, a fapi2 TPP with its client_credentials access token ' +
        '(scope accounts for account, balance and transaction scopes, payments for payments:write). Send the customer to consentUrl. ' +
        'Errors: PKCE_METHOD_REJECTED, VALIDATION_ERROR, BANK_NOT_REGISTERED, BANK_NOT_PARTICIPATING, FORBIDDEN (a fapi2 TPP without the needed client scope).',
    })
    async createConsent(
      @Arg('input', { description: 'Bank, scopes, redirect URI, state, PKCE challenge and expiry.' })
      input: CreateConsentInput,
      @Ctx() context: SubgraphContext,
    ): Promise<Consent> {
      const tpp = requirePrincipal(context, ['tpp']);
      const consent = await service.create(context.em, tpp, input, context.requestId);
      context.logger.info({ consent: consent.id, tpp: tpp.id, bank: consent.bankHandle }, 'consent created');
      return toConsent(consent, base);
    }

    @Query(() => Consent, {
      description:
        "A consent by id: with the TPP token, the TPP's own only; with an access token (Bearer at_ + X-Consent-Id), the consent it was issued for " +
        '(whose accounts it can then read). Anything else is CONSENT_NOT_FOUND, like an unknown id.',
    })
    async consent(
      @Arg('id', () => ID, { description: 'Consent id (con_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Consent> {
      const caller = requirePrincipal(context, ['tpp', 'ob_token']);
      return toConsent(await service.findForCaller(context.em, caller, id), base);
    }

    @Query(() => ConsentConnection, { description: "The TPP's consents, newest first, in pages." })
    async consents(
      @Arg('first', () => Int, { nullable: true, description: 'Page size, 1-100 (default 20).' }) first: number | null,
      @Arg('after', () => String, { nullable: true, description: 'endCursor of the previous page.' })
      after: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<ConsentConnection> {
      const tpp = requirePrincipal(context, ['tpp']);
      const page = await service.list(context.em, tpp.id, { first, after });
      const edges = page.consents.map((consent) => ({ cursor: consent.id, node: toConsent(consent, base) }));
      return {
        edges,
        pageInfo: pageInfoOf(edges, page.hasMore),
      };
    }
  }
  return ConsentResolver;
}
