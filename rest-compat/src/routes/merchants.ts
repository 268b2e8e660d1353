import { z } from 'zod';
import { defineRoute } from '../route';

export const idParams = z.object({ id: z.string().describe('Merchant id (mer_…).') }).strict();

// `merchantId: id`: the record carries merchant_id, as the registration response does.
export const MERCHANT_RECORD = `fragment MerchantRecord on Merchant { merchantId: id name mode status webhookUrl settlementIban createdAt updatedAt }`;

export const merchantRecord = z
  .object({
    merchant_id: z.string(),
    name: z.string(),
    mode: z.string().describe('test or live.'),
    status: z.string().describe('ACTIVE or SUSPENDED (by an operator).'),
    webhook_url: z.string().nullable(),
    settlement_iban: z.string().nullable(),
    created_at: z.string().describe('ISO 8601 UTC.'),
    updated_at: z.string().describe('ISO 8601 UTC.'),
  })
  .strict();

export const merchantRoutes = [
  defineRoute({
    method: 'POST',
    path: '/merchants',
    tag: 'Merchants',
    summary: 'Register a merchant',
    description:
      'Operator only. Returns the API key (mk_test_… or mk_live_…) and the webhook secret (whsec_…), each shown this once.',
    auth: [['adminKey']],
    body: z
      .object({
        name: z.string().describe('1-100 characters, shown to customers at checkout.'),
        webhook_url: z
          .string()
          .nullish()
          .describe('Where webhooks are delivered; https to a public host in production.'),
        mode: z.string().nullish().describe('test (default) or live.'),
        settlement_iban: z.string().nullish(),
      })
      .strict(),
    operation: `mutation RegisterMerchant($input: RegisterMerchantInput!) { registerMerchant(input: $input) { merchant { ...MerchantRecord } apiKey webhookSecret } }
${MERCHANT_RECORD}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ registerMerchant }) => ({
      ...registerMerchant.merchant,
      apiKey: registerMerchant.apiKey,
      webhookSecret: registerMerchant.webhookSecret,
    }),
    status: 201,
    response: merchantRecord.extend({
      api_key: z.string().describe('Shown once.'),
      webhook_secret: z.string().describe('Shown once.'),
    }),
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'GET',
    path: '/merchants/{id}',
    tag: 'Merchants',
    summary: 'Read a merchant',
    description: "An operator or the merchant itself; another merchant's key gets MERCHANT_NOT_FOUND.",
    auth: [['adminKey'], ['merchantKey']],
    params: idParams,
    operation: `query GetMerchant($id: ID!) { merchant(id: $id) { ...MerchantRecord } }
${MERCHANT_RECORD}`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ merchant }) => merchant,
    status: 200,
    response: merchantRecord,
    errors: ['INVALID_API_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'MERCHANT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'PATCH',
    path: '/merchants/{id}',
    tag: 'Merchants',
    summary: "Change a merchant's name, webhook URL or settlement IBAN",
    description:
      'An operator or the merchant itself. Omitted fields stay as they are; webhook_url null removes it. settlement_iban (where mandate charges are paid) is changed by an operator ' +
      "only (a merchant's key gets 403 FORBIDDEN) and cannot be removed: a merchant registered without one gets it here before creating mandates.",
    auth: [['adminKey'], ['merchantKey']],
    params: idParams,
    body: z
      .object({
        name: z.string().nullish(),
        webhook_url: z.string().nullish(),
        settlement_iban: z.string().optional().describe('Operator only; cannot be removed.'),
      })
      .strict(),
    operation: `mutation UpdateMerchant($id: ID!, $input: UpdateMerchantInput!) { updateMerchant(id: $id, input: $input) { ...MerchantRecord } }
${MERCHANT_RECORD}`,
    variables: ({ params, body }) => ({ id: params.id, input: body }),
    result: ({ updateMerchant }) => updateMerchant,
    status: 200,
    response: merchantRecord,
    errors: ['INVALID_API_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'MERCHANT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/merchants/{id}/rotate-key',
    tag: 'Merchants',
    summary: "Rotate a merchant's API key",
    description: 'Operator only. The new key is returned once; the old one stops working at once.',
    auth: [['adminKey']],
    params: idParams,
    operation: `mutation RotateMerchantKey($id: ID!) { rotateMerchantKey(id: $id) { apiKey } }`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ rotateMerchantKey }) => rotateMerchantKey,
    status: 200,
    response: z.object({ api_key: z.string().describe('The new API key. Shown once.') }).strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'MERCHANT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/merchants/{id}/rotate-webhook-secret',
    tag: 'Merchants',
    summary: "Rotate a merchant's webhook secret",
    description: 'An operator or the merchant itself. Returned once; the old secret stops signing at once.',
    auth: [['adminKey'], ['merchantKey']],
    params: idParams,
    operation: `mutation RotateWebhookSecret($id: ID!) { rotateWebhookSecret(id: $id) { webhookSecret } }`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ rotateWebhookSecret }) => rotateWebhookSecret,
    status: 200,
    response: z
      .object({ webhook_secret: z.string().describe('The new webhook secret (whsec_…). Shown once.') })
      .strict(),
    errors: ['INVALID_API_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'MERCHANT_NOT_FOUND'],
  }),
];
