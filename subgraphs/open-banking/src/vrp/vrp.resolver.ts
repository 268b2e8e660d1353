import { Arg, Ctx, Directive, ID, Mutation, Query, Resolver } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { CORE_CALL_COST, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { CreateVrpConsentInput, CreateVrpPaymentInput } from './vrp.input';
import { toVrpConsent, toVrpPayment, VrpConsent, VrpFundsConfirmation, VrpPayment } from './vrp.type';
import type { VrpConsentService, VrpConsentView } from './vrp-consent.service';
import type { VrpPaymentService } from './vrp-payment.service';

const CALL_ERRORS = 'UNAUTHORIZED, TOKEN_EXPIRED, TOKEN_REVOKED, CONSENT_EXPIRED, FORBIDDEN, SCOPE_INSUFFICIENT';

/** Variable recurring payments (issue 51): VRP consents, their payments, and funds confirmation on them. */
export function createVrpResolver(consents: VrpConsentService, payments: VrpPaymentService) {
  const graph = (view: VrpConsentView) => toVrpConsent(view.consent, view.terms, view.usage, consents.publicBaseUrl);

  @Resolver(() => VrpConsent)
  class VrpResolver {
    @Mutation(() => VrpConsent, {
      description:
        'Creates a VRP consent (POST /ob/vrp-consents): a spec TPP with its tpk_ token, a fapi2 TPP with its client_credentials access token ' +
        '(client scope payments). Send the customer to consentUrl; the page shows every limit. Errors: PKCE_METHOD_REJECTED, VALIDATION_ERROR ' +
        '(a Calendar Fortnight, valid_to before valid_from, an unknown period type), BANK_NOT_REGISTERED, BANK_NOT_PARTICIPATING, ALIAS_INACTIVE, FORBIDDEN.',
    })
    async createVrpConsent(
      @Arg('input', {
        description: 'Bank, payee, currency, reference, control parameters, redirect URI, state and PKCE challenge.',
      })
      input: CreateVrpConsentInput,
      @Ctx() context: SubgraphContext,
    ): Promise<VrpConsent> {
      const tpp = requirePrincipal(context, ['tpp']);
      const view = await consents.create(context.em, tpp, input, context.requestId);
      context.logger.info(
        { consent: view.consent.id, tpp: tpp.id, bank: view.consent.bankHandle },
        'VRP consent created',
      );
      return graph(view);
    }

    @Query(() => VrpConsent, {
      description:
        "A VRP consent by id (GET /ob/vrp-consents/{id}) with, per periodic limit, its current period's used and remaining: the TPP's own (TPP token), " +
        'or the one an access token was issued for. Anything else, another kind of consent included, is CONSENT_NOT_FOUND.',
    })
    async vrpConsent(
      @Arg('id', () => ID, { description: 'Consent id (con_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<VrpConsent> {
      const caller = requirePrincipal(context, ['tpp', 'ob_token']);
      return graph(await consents.findForCaller(context.em, caller, id));
    }

    @Mutation(() => VrpConsent, {
      description:
        'The TPP revokes a VRP consent (DELETE /ob/vrp-consents/{id}), as revokeConsent: REVOKED, vrp_consent.revoked sent, every code and token of it ' +
        'dead at once, no payment after it; idempotent on a final consent. Errors: CONSENT_NOT_FOUND.',
    })
    async revokeVrpConsent(
      @Arg('id', () => ID, { description: 'Consent id (con_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<VrpConsent> {
      const principal = requirePrincipal(context, ['tpp', 'ob_token']);
      const view = await consents.revoke(context.em, principal, id);
      context.logger.info({ consent: id, by: principal.kind }, 'VRP consent revoked by the TPP');
      return graph(view);
    }

    @Directive(CORE_CALL_COST)
    @Mutation(() => VrpFundsConfirmation, {
      description:
        "Does the VRP consent's payer account hold this amount now, in the consent currency? (POST /ob/vrp-consents/{id}/funds-confirmation; " +
        `the consent's access token.) Read live from the bank core; yes or no, never the balance. Errors: ${CALL_ERRORS}, VALIDATION_ERROR, CBS_TIMEOUT, CBS_ERROR.`,
    })
    async confirmVrpFunds(
      @Arg('consentId', () => ID, { description: 'The VRP consent (con_…) of the access token.' }) consentId: string,
      @Arg('amount', () => GraphQLSafeInt, { description: 'Positive integer of minor units.' }) amount: number,
      @Ctx() context: SubgraphContext,
    ): Promise<VrpFundsConfirmation> {
      return consents.confirmFunds(context.em, context.principal, consentId, { amount }, context.requestId);
    }

    @Mutation(() => VrpPayment, {
      description:
        "A payment under a VRP consent (POST /ob/vrp-payments; the consent's access token). No SCA: accepted only within valid_from/valid_to and every " +
        'limit (the maximum individual amount and each current period), checked and reserved before any core call; the payments engine then moves ' +
        `the money (PROCESSING, then COMPLETED or FAILED, vrp_payment.* webhooks). Errors: ${CALL_ERRORS}, VALIDATION_ERROR, VRP_LIMIT_EXCEEDED (naming the limit), ` +
        'VRP_OUTSIDE_VALIDITY, AMOUNT_TOO_LOW, AMOUNT_TOO_HIGH, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE.',
    })
    async createVrpPayment(
      @Arg('input', { description: 'Consent, amount and reference.' }) input: CreateVrpPaymentInput,
      @Arg('idempotencyKey', () => String, {
        nullable: true,
        description:
          'Same key and body within 24 hours: the same payment (as it is now); another body: IDEMPOTENCY_KEY_REUSED; while the first runs: IDEMPOTENCY_KEY_IN_USE.',
      })
      idempotencyKey: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<VrpPayment> {
      const payment = await payments.create(context.em, context.principal, input, idempotencyKey, context.requestId);
      context.logger.info(
        { vrp_payment: payment.id, consent: payment.consentId, status: payment.status },
        'VRP payment accepted',
      );
      return toVrpPayment(payment);
    }

    @Query(() => VrpPayment, {
      description:
        "A VRP payment (GET /ob/vrp-payments/{id}): with an access token, its own consent's payments only; with the TPP token, the TPP's. Anything else is VRP_PAYMENT_NOT_FOUND.",
    })
    async vrpPayment(
      @Arg('id', () => ID, { description: 'VRP payment id (vrp_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<VrpPayment> {
      const caller = requirePrincipal(context, ['ob_token', 'tpp']);
      return toVrpPayment(await payments.findForCaller(context.em, caller, id));
    }
  }
  return VrpResolver;
}
