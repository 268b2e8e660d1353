import { Arg, Ctx, Directive, ID, Mutation, Query, Resolver } from 'type-graphql';
import { CORE_CALL_COST, type SubgraphContext } from '@gateway/federation';
import { ApproveConsentInput } from './authorisation.input';
import type { AuthorisationService } from './authorisation.service';
import { ConsentAuthorisation, ConsentDecision } from './authorisation.type';

/**
 * The consent page's operations. Public: the unguessable consent id opens the page, as the
 * session id does at checkout; the customer proves who they are with their bank's OTP to approve,
 * and rejects with the token the page was opened with (never by the consent id alone).
 */
export function createAuthorisationResolver(service: AuthorisationService) {
  @Resolver(() => ConsentAuthorisation)
  class AuthorisationResolver {
    @Query(() => ConsentAuthorisation, {
      description: 'What the consent page shows (public; GET /ob/auth/{consent_id}). Error: CONSENT_NOT_FOUND.',
    })
    async consentAuthorisation(
      @Arg('id', () => ID, { description: 'Consent id (con_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<ConsentAuthorisation> {
      return service.view(context.em, id);
    }

    @Directive(CORE_CALL_COST)
    @Mutation(() => ConsentDecision, {
      description:
        "The customer approves (public; POST /ob/auth/{consent_id}/approve): found in the identity registry at the consent's bank, OTP verified by that bank's core; " +
        "the consent becomes AUTHORISED with the customer's accounts at that bank, and redirectTo carries the authorization code. " +
        'Errors: OTP_INVALID (the third one rejects the consent), ALIAS_NOT_FOUND (also for an account at another bank), ALIAS_INACTIVE, CONSENT_NOT_FOUND, ' +
        'CONSENT_EXPIRED, CONSENT_REVOKED, CONSENT_ALREADY_DECIDED, BANK_NOT_PARTICIPATING (the bank is suspended), TPP_SUSPENDED (the TPP is suspended: the consent stays awaiting), CBS_TIMEOUT, CBS_ERROR, VALIDATION_ERROR.',
    })
    async approveConsent(
      @Arg('consentId', () => ID, { description: 'Consent id (con_…).' }) consentId: string,
      @Arg('input', { description: 'The customer and the OTP from their bank.' }) input: ApproveConsentInput,
      @Ctx() context: SubgraphContext,
    ): Promise<ConsentDecision> {
      return service.approve(context.em, consentId, input, context.principal.ip ?? null, context.requestId);
    }

    @Mutation(() => ConsentDecision, {
      description:
        "The customer refuses on the consent page (POST /ob/auth/{consent_id}/reject), with the page's pageToken: the consent becomes REJECTED and redirectTo carries error=access_denied. " +
        'Repeating it answers the same. Errors: UNAUTHORIZED (pageToken missing, of another consent or run out: never by the consent id alone), CONSENT_NOT_FOUND, CONSENT_EXPIRED, ' +
        'CONSENT_REVOKED, CONSENT_ALREADY_DECIDED (already approved).',
    })
    async rejectConsent(
      @Arg('consentId', () => ID, { description: 'Consent id (con_…).' }) consentId: string,
      @Arg('pageToken', () => String, {
        nullable: true,
        description: 'ConsentAuthorisation.pageToken, as the consent page was opened with it (valid 30 minutes).',
      })
      pageToken: string | null | undefined,
      @Ctx() context: SubgraphContext,
    ): Promise<ConsentDecision> {
      return service.reject(context.em, consentId, pageToken);
    }
  }
  return AuthorisationResolver;
}
