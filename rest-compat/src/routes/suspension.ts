import { z } from 'zod';
import { defineRoute } from '../route';
import { BANK_RECORD, bankRecord, handleParams } from './banks';
import { MERCHANT_RECORD, merchantRecord, idParams as merchantIdParams } from './merchants';
import { TPP_RECORD, tppRecord, idParams as tppIdParams } from './tpps';

const IDEMPOTENT = 'Idempotent: calling it again answers 200 with the record as it is (and records nothing).';

/** An optional body: the operator's reason, kept in the audit entry (GET /admin/audit: changes.reason). */
const reasonBody = z
  .object({
    reason: z.string().nullish().describe('1-500 characters: why. Kept in the audit entry as changes.reason.'),
  })
  .strict();

/**
 * Operator controls (API-CONTRACT): suspending and resuming banks, merchants and TPPs. Admin key
 * only; each answers the participant's record with its status. What a suspension stops is said
 * on each route; work already in flight always finishes.
 */
export const suspensionRoutes = [
  defineRoute({
    method: 'POST',
    path: '/banks/{handle}/suspend',
    tag: 'Banks',
    summary: 'Suspend a bank',
    description:
      'Operator only. The bank takes part in no new session, consent, payment order, mandate or charge, as payer’s or payee’s bank (422 BANK_NOT_PARTICIPATING, within a second), ' +
      'and its bank key answers 403 BANK_SUSPENDED at once. Movements in flight finish (its internal key keeps working for their callbacks) and settlement still pays its positions. ' +
      IDEMPOTENT,
    auth: [['adminKey']],
    params: handleParams,
    body: reasonBody,
    operation: `mutation SuspendBank($handle: String!, $reason: String) { suspendBank(handle: $handle, reason: $reason) { ...BankRecord } }
${BANK_RECORD}`,
    variables: ({ params, body }) => ({ handle: params.handle, reason: body.reason }),
    result: ({ suspendBank }) => suspendBank,
    status: 200,
    response: bankRecord,
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'BANK_NOT_REGISTERED'],
  }),
  defineRoute({
    method: 'POST',
    path: '/banks/{handle}/resume',
    tag: 'Banks',
    summary: 'Resume a suspended bank',
    description: `Operator only. Its bank key works again and it takes new work. ${IDEMPOTENT}`,
    auth: [['adminKey']],
    params: handleParams,
    body: reasonBody,
    operation: `mutation ResumeBank($handle: String!, $reason: String) { resumeBank(handle: $handle, reason: $reason) { ...BankRecord } }
${BANK_RECORD}`,
    variables: ({ params, body }) => ({ handle: params.handle, reason: body.reason }),
    result: ({ resumeBank }) => resumeBank,
    status: 200,
    response: bankRecord,
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'BANK_NOT_REGISTERED'],
  }),
  defineRoute({
    method: 'POST',
    path: '/merchants/{id}/suspend',
    tag: 'Merchants',
    summary: 'Suspend a merchant',
    description:
      'Operator only. Its API keys and dashboard sessions answer 403 MERCHANT_SUSPENDED at once, so it starts no new session, mandate or charge; ' +
      'its open sessions can no longer be paid (checkout: 403 MERCHANT_SUSPENDED, the session stays PENDING until it expires or the merchant is resumed). ' +
      `Payments already authorized finish; its webhook deliveries wait as HELD (not attempted, retried or counted) and go out in order once it is resumed. ${IDEMPOTENT}`,
    auth: [['adminKey']],
    params: merchantIdParams,
    body: reasonBody,
    operation: `mutation SuspendMerchant($id: ID!, $reason: String) { suspendMerchant(id: $id, reason: $reason) { ...MerchantRecord } }
${MERCHANT_RECORD}`,
    variables: ({ params, body }) => ({ id: params.id, reason: body.reason }),
    result: ({ suspendMerchant }) => suspendMerchant,
    status: 200,
    response: merchantRecord,
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'MERCHANT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/merchants/{id}/resume',
    tag: 'Merchants',
    summary: 'Resume a suspended merchant',
    description: `Operator only. Its keys, dashboard sessions and open sessions work again. ${IDEMPOTENT}`,
    auth: [['adminKey']],
    params: merchantIdParams,
    body: reasonBody,
    operation: `mutation ResumeMerchant($id: ID!, $reason: String) { resumeMerchant(id: $id, reason: $reason) { ...MerchantRecord } }
${MERCHANT_RECORD}`,
    variables: ({ params, body }) => ({ id: params.id, reason: body.reason }),
    result: ({ resumeMerchant }) => resumeMerchant,
    status: 200,
    response: merchantRecord,
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'MERCHANT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/tpps/{id}/suspend',
    tag: 'Open Banking',
    summary: 'Suspend a TPP',
    description:
      'Operator only. Its tpk_ token and every authorization code, access token and refresh token of its consents answer 403 TPP_SUSPENDED at once; ' +
      'customers cannot approve its consents or authorise its payment orders meanwhile (403 TPP_SUSPENDED). Nothing is revoked: all of it works again on resume. ' +
      `Payment orders already executing finish; its webhook deliveries wait as HELD and go out in order on resume. ${IDEMPOTENT}`,
    auth: [['adminKey']],
    params: tppIdParams,
    body: reasonBody,
    operation: `mutation SuspendTpp($id: ID!, $reason: String) { suspendTpp(id: $id, reason: $reason) { ...TppRecord } }
${TPP_RECORD}`,
    variables: ({ params, body }) => ({ id: params.id, reason: body.reason }),
    result: ({ suspendTpp }) => suspendTpp,
    status: 200,
    response: tppRecord,
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'TPP_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/tpps/{id}/resume',
    tag: 'Open Banking',
    summary: 'Resume a suspended TPP',
    description: `Operator only. Its token and its consents’ codes and tokens work again. ${IDEMPOTENT}`,
    auth: [['adminKey']],
    params: tppIdParams,
    body: reasonBody,
    operation: `mutation ResumeTpp($id: ID!, $reason: String) { resumeTpp(id: $id, reason: $reason) { ...TppRecord } }
${TPP_RECORD}`,
    variables: ({ params, body }) => ({ id: params.id, reason: body.reason }),
    result: ({ resumeTpp }) => resumeTpp,
    status: 200,
    response: tppRecord,
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'TPP_NOT_FOUND'],
  }),
];
