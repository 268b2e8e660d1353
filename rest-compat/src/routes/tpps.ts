import { z } from 'zod';
import { defineRoute } from '../route';

// `tppId: id`: the record carries tpp_id, as the registration response does.
const TPP_RECORD = `fragment TppRecord on Tpp { tppId: id name redirectUris webhookUrl createdAt }`;

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
        redirect_uris: z.array(z.string()).describe("Exact redirect URIs; a consent's redirect_uri must equal one of them."),
        webhook_url: z.string().nullish().describe('Where Open Banking events will be delivered (planned).'),
      })
      .strict(),
    operation: `mutation RegisterTpp($input: RegisterTppInput!) { registerTpp(input: $input) { tpp { ...TppRecord } tppAccessToken webhookSecret } }
${TPP_RECORD}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ registerTpp }) => ({ ...registerTpp.tpp, tppAccessToken: registerTpp.tppAccessToken, webhookSecret: registerTpp.webhookSecret }),
    status: 201,
    response: z
      .object({
        tpp_id: z.string().describe('tpp_…'),
        name: z.string(),
        redirect_uris: z.array(z.string()),
        webhook_url: z.string().nullable(),
        created_at: z.string().describe('ISO 8601 UTC.'),
        tpp_access_token: z.string().describe('tpk_…, for Authorization: Bearer. Shown once.'),
        webhook_secret: z.string().describe('whsec_…. Shown once.'),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
];
