import { z } from 'zod';
import { defineRoute } from '../route';
import { CONSENT_RECORD, consentRecord } from './consents';

export const consentRevocationRoutes = [
  defineRoute({
    method: 'DELETE',
    path: '/ob/consents/{consent_id}',
    tag: 'Open Banking',
    summary: 'Revoke a consent (TPP)',
    description:
      "With the TPP token (tpk_, any consent of the TPP) or the consent's access token (Bearer at_ + X-Consent-Id). In one step the consent becomes REVOKED " +
      '(revoked_by tpp, consent.revoked sent) and every authorization code, access token and refresh token of it stops working: the next call with any ' +
      'of them gets 401 TOKEN_REVOKED. A consent still AWAITING_AUTHORISATION is withdrawn the same way. Idempotent: a consent already REVOKED, ' +
      "REJECTED or EXPIRED answers 204 again and stays as it is. Another TPP's consent is 404 CONSENT_NOT_FOUND.",
    auth: [['tppToken'], ['obToken', 'consentId']],
    fapi: true,
    params: z.object({ consent_id: z.string().describe('con_…') }).strict(),
    operation: `mutation RevokeConsent($id: ID!) { revokeConsent(id: $id) { id } }`,
    variables: ({ params }) => ({ id: params.consentId }),
    status: 204,
    errors: ['UNAUTHORIZED', 'INVALID_API_KEY', 'TOKEN_EXPIRED', 'TOKEN_REVOKED', 'FORBIDDEN', 'CONSENT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/consents/{consent_id}/revoke',
    tag: 'Open Banking',
    summary: 'Revoke a consent (bank)',
    description:
      "The consent's bank, with its bank key: the customer revoked the consent in the bank app (revoked_by customer) or the bank ended it " +
      "(revoked_by bank, the default). Same effect as the TPP's DELETE: REVOKED, consent.revoked to the TPP, every token dead at once. " +
      'Idempotent: a consent already final is answered as it stands. A consent at another bank is 404 CONSENT_NOT_FOUND.',
    auth: [['bankKey']],
    params: z.object({ consent_id: z.string().describe('con_…') }).strict(),
    body: z
      .object({
        revoked_by: z
          .enum(['customer', 'bank'])
          .optional()
          .describe('Who revoked it: customer (in the bank app) or bank; default bank.'),
      })
      .strict(),
    operation: `mutation RevokeConsentAtBank($id: ID!, $revokedBy: BankRevoker) { revokeConsentAtBank(id: $id, revokedBy: $revokedBy) { ...ConsentRecord } }
${CONSENT_RECORD}`,
    variables: ({ params, body }) => ({ id: params.consentId, revokedBy: body.revokedBy ?? null }),
    result: ({ revokeConsentAtBank }) => revokeConsentAtBank,
    status: 200,
    response: consentRecord,
    errors: ['INVALID_BANK_KEY', 'FORBIDDEN', 'CONSENT_NOT_FOUND'],
  }),
];
