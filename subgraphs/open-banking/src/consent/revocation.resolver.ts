import { Arg, Ctx, ID, Mutation, Resolver, registerEnumType } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import type { ConsentService } from './consent.service';
import { revokeConsent } from './consent.revocation';
import { Consent, toConsent } from './consent.type';

/** Who, on the bank's side, ended the consent (recorded as revoked_by). */
export enum BankRevoker {
  customer = 'customer',
  bank = 'bank',
}

registerEnumType(BankRevoker, {
  name: 'BankRevoker',
  description: "Who revoked a consent at the bank: recorded as the consent's revokedBy and sent in consent.revoked.",
  valuesConfig: {
    customer: { description: 'The customer revoked it in the bank app.' },
    bank: { description: 'The bank revoked it on its own account (fraud, closed account, ...).' },
  },
});

export function createRevocationResolver(service: ConsentService) {
  const base = service.settings.publicBaseUrl;

  @Resolver(() => Consent)
  class RevocationResolver {
    @Mutation(() => Consent, {
      description:
        "The TPP revokes a consent (DELETE /ob/consents/{id}): with its TPP token (tpk_, any consent of its own) or with the consent's access token " +
        '(Bearer at_ + X-Consent-Id, that consent only). In one transaction the consent becomes REVOKED (revokedBy tpp, consent.revoked sent) and every ' +
        'code, access token and refresh token of it stops working: the next request with any of them gets TOKEN_REVOKED. A consent still ' +
        'AWAITING_AUTHORISATION is withdrawn the same way (its consent page can no longer be approved). Revoking a consent that is already ' +
        'REVOKED, REJECTED or EXPIRED changes nothing and succeeds (idempotent). Errors: CONSENT_NOT_FOUND (unknown, or not yours).',
    })
    async revokeConsent(
      @Arg('id', () => ID, { description: 'Consent id (con_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Consent> {
      const principal = requirePrincipal(context, ['tpp', 'ob_token']);
      const consent = await revokeConsent(context.em, id, { by: 'tpp', principal });
      context.logger.info({ consent: id, by: 'tpp', status: consent.status }, 'consent revoked');
      return toConsent(consent, base);
    }

    @Mutation(() => Consent, {
      description:
        "The consent's bank revokes it (POST /ob/consents/{id}/revoke, X-Service-Bank-Key): the customer withdrew it in the bank app (revokedBy " +
        'customer) or the bank ended it (revokedBy bank, the default). Same effect as revokeConsent: REVOKED, consent.revoked to the TPP, every token ' +
        'dead at once. Idempotent on a consent already final (answered as it stands). Errors: CONSENT_NOT_FOUND (unknown, or at another bank).',
    })
    async revokeConsentAtBank(
      @Arg('id', () => ID, { description: 'Consent id (con_…).' }) id: string,
      @Arg('revokedBy', () => BankRevoker, {
        nullable: true,
        description: 'Who revoked it: customer or bank (default bank).',
      })
      revokedBy: BankRevoker | null,
      @Ctx() context: SubgraphContext,
    ): Promise<Consent> {
      const bank = requirePrincipal(context, ['bank'], 'INVALID_BANK_KEY');
      const consent = await revokeConsent(context.em, id, {
        by: 'bank',
        bankHandle: bank.id,
        revokedBy: revokedBy ?? BankRevoker.bank,
      });
      context.logger.info(
        { consent: id, by: revokedBy ?? 'bank', bank: bank.id, status: consent.status },
        'consent revoked at the bank',
      );
      return toConsent(consent, base);
    }
  }
  return RevocationResolver;
}
