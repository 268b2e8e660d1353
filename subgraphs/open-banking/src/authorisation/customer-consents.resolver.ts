import { Arg, Ctx, Directive, ID, Mutation, Query, Resolver } from 'type-graphql';
import { CORE_CALL_COST, type SubgraphContext } from '@gateway/federation';
import type { CustomerConsentsService } from './customer-consents.service';
import {
  CustomerConsent,
  CustomerConsentRevocation,
  CustomerConsentsSession,
  SignInCustomerConsentsInput,
} from './customer-consents.type';

const TOKEN_DESCRIPTION = 'CustomerConsentsSession.token from signInCustomerConsents (ccs_…, valid 10 minutes).';

/**
 * The customer's own consent list (GET /ob/my-consents). Public like the consent page: the
 * customer proves who they are with their bank's OTP once, and the signed token of that sign-in
 * carries the list and each revocation.
 */
export function createCustomerConsentsResolver(service: CustomerConsentsService) {
  @Resolver(() => CustomerConsent)
  class CustomerConsentsResolver {
    @Directive(CORE_CALL_COST)
    @Mutation(() => CustomerConsentsSession, {
      description:
        "The customer signs in at their bank (public; POST /ob/my-consents/session): found in the identity registry by alias or IBAN at that bank, OTP verified by the bank's core " +
        '(wrong ones counted, rate limited, as at consent approval). Answers a 10-minute token and their AUTHORISED live consents at that bank. ' +
        'Errors: OTP_INVALID, ALIAS_NOT_FOUND (also for an account at another bank), ALIAS_INACTIVE, BANK_NOT_PARTICIPATING, RATE_LIMITED, CBS_TIMEOUT, CBS_ERROR, VALIDATION_ERROR.',
    })
    async signInCustomerConsents(
      @Arg('input', { description: 'The bank, the customer (alias or IBAN) and the OTP from their bank.' })
      input: SignInCustomerConsentsInput,
      @Ctx() context: SubgraphContext,
    ): Promise<CustomerConsentsSession> {
      return service.signIn(context.em, input, context.principal.ip ?? null, context.requestId);
    }

    @Query(() => [CustomerConsent], {
      description:
        "The signed-in customer's AUTHORISED live consents at their bank, newest first (public, with the token; GET /ob/my-consents/consents). " +
        'Errors: UNAUTHORIZED (token missing, forged or run out).',
    })
    async customerConsents(
      @Arg('token', () => String, { description: TOKEN_DESCRIPTION }) token: string,
      @Ctx() context: SubgraphContext,
    ): Promise<CustomerConsent[]> {
      return service.list(context.em, token, context.requestId);
    }

    @Mutation(() => CustomerConsentRevocation, {
      description:
        'The signed-in customer revokes one of their consents (public, with the token; POST /ob/my-consents/consents/{consent_id}/revoke): REVOKED with revoked_by customer, ' +
        'consent.revoked (vrp_consent.revoked) sent, every code and token of it dead at once. Repeating it answers the same. ' +
        "Errors: UNAUTHORIZED (token missing, forged or run out), CONSENT_NOT_FOUND (unknown, or not this customer's).",
    })
    async revokeCustomerConsent(
      @Arg('token', () => String, { description: TOKEN_DESCRIPTION }) token: string,
      @Arg('consentId', () => ID, { description: 'Consent id (con_…).' }) consentId: string,
      @Ctx() context: SubgraphContext,
    ): Promise<CustomerConsentRevocation> {
      return service.revoke(context.em, token, consentId, context.requestId);
    }
  }
  return CustomerConsentsResolver;
}
