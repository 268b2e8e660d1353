import { Arg, Ctx, Directive, ID, Mutation, Query, Resolver } from 'type-graphql';
import { CORE_CALL_COST, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { ConfirmFundsInput, CreateFundsConfirmationConsentInput } from './funds-confirmation.input';
import type { FundsConfirmationService } from './funds-confirmation.service';
import { FundsConfirmation, FundsConfirmationConsent, toFundsConfirmationConsent } from './funds-confirmation.type';

const DATA_ERRORS =
  'UNAUTHORIZED, TOKEN_EXPIRED, TOKEN_REVOKED, CONSENT_EXPIRED, FORBIDDEN, SCOPE_INSUFFICIENT, VALIDATION_ERROR, CURRENCY_MISMATCH, CBS_TIMEOUT, CBS_ERROR';

/** Confirmation of funds (CBPII, issue 51): the consent's own door, and the question. */
export function createFundsConfirmationResolver(service: FundsConfirmationService) {
  @Resolver(() => FundsConfirmationConsent)
  class FundsConfirmationResolver {
    @Mutation(() => FundsConfirmationConsent, {
      description:
        'Creates a funds-confirmation consent (POST /ob/funds-confirmation-consents): a spec TPP with its tpk_ token, a fapi2 TPP with its ' +
        'client_credentials access token (client scope accounts). Send the customer to consentUrl; the approving customer must hold the account. ' +
        'Errors: PKCE_METHOD_REJECTED, VALIDATION_ERROR, BANK_NOT_REGISTERED, BANK_NOT_PARTICIPATING, FORBIDDEN.',
    })
    async createFundsConfirmationConsent(
      @Arg('input', { description: 'Bank, account, expiry, redirect URI, state and PKCE challenge.' })
      input: CreateFundsConfirmationConsentInput,
      @Ctx() context: SubgraphContext,
    ): Promise<FundsConfirmationConsent> {
      const tpp = requirePrincipal(context, ['tpp']);
      const consent = await service.create(context.em, tpp, input, context.requestId);
      context.logger.info(
        { consent: consent.id, tpp: tpp.id, bank: consent.bankHandle },
        'funds-confirmation consent created',
      );
      return toFundsConfirmationConsent(consent, service.publicBaseUrl);
    }

    @Query(() => FundsConfirmationConsent, {
      description:
        "A funds-confirmation consent by id: the TPP's own (TPP token), or the one an access token was issued for. Anything else, " +
        'another kind of consent included, is CONSENT_NOT_FOUND.',
    })
    async fundsConfirmationConsent(
      @Arg('id', () => ID, { description: 'Consent id (con_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<FundsConfirmationConsent> {
      const caller = requirePrincipal(context, ['tpp', 'ob_token']);
      return toFundsConfirmationConsent(await service.findForCaller(context.em, caller, id), service.publicBaseUrl);
    }

    @Mutation(() => FundsConfirmationConsent, {
      description:
        'The TPP revokes a funds-confirmation consent (DELETE /ob/funds-confirmation-consents/{id}), as revokeConsent: REVOKED, consent.revoked ' +
        'sent, every code and token of it dead at once; idempotent on a final consent. Errors: CONSENT_NOT_FOUND.',
    })
    async revokeFundsConfirmationConsent(
      @Arg('id', () => ID, { description: 'Consent id (con_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<FundsConfirmationConsent> {
      const principal = requirePrincipal(context, ['tpp', 'ob_token']);
      const consent = await service.revoke(context.em, principal, id);
      context.logger.info({ consent: id, by: principal.kind }, 'funds-confirmation consent revoked by the TPP');
      return toFundsConfirmationConsent(consent, service.publicBaseUrl);
    }

    @Directive(CORE_CALL_COST)
    @Mutation(() => FundsConfirmation, {
      description:
        "Does the consent's account hold this amount now? (POST /ob/funds-confirmations; the funds-confirmation consent's access token " +
        `and X-Consent-Id.) Read live from the bank core; the answer is yes or no, never the balance. Errors: ${DATA_ERRORS}.`,
    })
    async confirmFunds(
      @Arg('input', { description: 'Consent, reference, amount and currency.' }) input: ConfirmFundsInput,
      @Ctx() context: SubgraphContext,
    ): Promise<FundsConfirmation> {
      return service.confirm(context.em, context.principal, input, context.requestId);
    }
  }
  return FundsConfirmationResolver;
}
