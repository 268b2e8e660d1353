import { z } from 'zod';
import { defineRoute } from '../route';

// `tppId: id`: the record carries tpp_id, as the registration response does.
export const TPP_RECORD = `fragment TppRecord on Tpp { tppId: id name mode redirectUris webhookUrl status createdAt }`;

export const tppRecord = z
  .object({
    tpp_id: z.string().describe('tpp_…'),
    name: z.string(),
    mode: z.string().describe("test or live: a test TPP's consents and payment orders never move real funds."),
    redirect_uris: z.array(z.string()),
    webhook_url: z.string().nullable(),
    status: z
      .string()
      .describe(
        'ACTIVE or SUSPENDED (by an operator: its tpk_ token and its consents’ tokens answer 403 TPP_SUSPENDED).',
      ),
    created_at: z.string().describe('ISO 8601 UTC.'),
  })
  .strict();
export const idParams = z.object({ id: z.string().describe('TPP id (tpp_…).') }).strict();

export const tppRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ob/tpps',
    tag: 'Open Banking',
    summary: 'Register a TPP',
    description: 'Operator only. Returns the TPP access token (tpk_…) and the webhook secret, each shown this once.',
    auth: [['adminKey']],
    body: z
      .object({
        name: z.string(),
        mode: z
          .string()
          .nullish()
          .describe('test (default) or live, fixed at registration: a test TPP reads and pays at test cores only.'),
        redirect_uris: z
          .array(z.string())
          .describe("Exact redirect URIs; a consent's redirect_uri must equal one of them."),
        webhook_url: z
          .string()
          .nullish()
          .describe(
            'Where Open Banking events (consent.*, payment_order.*) are delivered, signed with webhook_secret.',
          ),
      })
      .strict(),
    operation: `mutation RegisterTpp($input: RegisterTppInput!) { registerTpp(input: $input) { tpp { ...TppRecord } tppAccessToken webhookSecret } }
${TPP_RECORD}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ registerTpp }) => ({
      ...registerTpp.tpp,
      tppAccessToken: registerTpp.tppAccessToken,
      webhookSecret: registerTpp.webhookSecret,
    }),
    status: 201,
    response: z
      .object({
        tpp_id: z.string().describe('tpp_…'),
        name: z.string(),
        mode: z.string().describe('test or live.'),
        redirect_uris: z.array(z.string()),
        webhook_url: z.string().nullable(),
        status: z.string().describe('ACTIVE.'),
        created_at: z.string().describe('ISO 8601 UTC.'),
        tpp_access_token: z.string().describe('tpk_…, for Authorization: Bearer. Shown once.'),
        webhook_secret: z.string().describe('whsec_…. Shown once.'),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'PATCH',
    path: '/ob/tpps/{id}',
    tag: 'Open Banking',
    summary: "Change a TPP's name or webhook URL",
    description:
      'An operator or the TPP itself (its tpk_ token; another TPP gets 404). Omitted fields stay as they are; webhook_url null removes it.',
    auth: [['adminKey'], ['tppToken']],
    params: idParams,
    body: z.object({ name: z.string().nullish(), webhook_url: z.string().nullish() }).strict(),
    operation: `mutation UpdateTpp($id: ID!, $input: UpdateTppInput!) { updateTpp(id: $id, input: $input) { ...TppRecord } }
${TPP_RECORD}`,
    variables: ({ params, body }) => ({ id: params.id, input: body }),
    result: ({ updateTpp }) => updateTpp,
    status: 200,
    response: tppRecord,
    errors: ['INVALID_API_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'TPP_NOT_FOUND'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/tpps/{id}/rotate-webhook-secret',
    tag: 'Open Banking',
    summary: "Rotate a TPP's webhook secret",
    description:
      'An operator or the TPP itself (its tpk_ token; another TPP gets 404). Returned once; the old secret stops signing at once.',
    auth: [['adminKey'], ['tppToken']],
    params: idParams,
    operation: `mutation RotateTppWebhookSecret($id: ID!) { rotateTppWebhookSecret(id: $id) { webhookSecret } }`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ rotateTppWebhookSecret }) => rotateTppWebhookSecret,
    status: 200,
    response: z
      .object({ webhook_secret: z.string().describe('The new webhook secret (whsec_…). Shown once.') })
      .strict(),
    errors: ['INVALID_API_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'TPP_NOT_FOUND'],
  }),
];
