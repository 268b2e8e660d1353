import { z } from 'zod';
import { defineRoute } from '../route';

// `tppId: id`: the record carries tpp_id, as the registration response does.
export const TPP_RECORD = `fragment TppRecord on Tpp { tppId: id name mode redirectUris webhookUrl status securityProfile jwks createdAt }`;

/** A JWK Set of public keys, as stored and shown (public members only). */
export const jwksSchema = z
  .object({
    keys: z.array(
      z
        .object({
          kty: z.string().describe('EC, RSA or OKP.'),
          kid: z.string(),
          use: z.string().optional(),
          alg: z.string().optional().describe('ES256, PS256 or EdDSA.'),
          crv: z.string().optional(),
          x: z.string().optional(),
          y: z.string().optional(),
          n: z.string().optional(),
          e: z.string().optional(),
        })
        .strict(),
    ),
  })
  .strict();

const SECURITY_PROFILE =
  "spec (the spec's flow: tpk_ token, public client at /ob/token) or fapi2 (confidential client: private_key_jwt with a key of jwks; client_credentials tokens instead of tpk_).";

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
        'ACTIVE, SUSPENDED (by an operator: its tpk_ token and its consents’ tokens answer 403 TPP_SUSPENDED) or DISABLED (deleted by its client, RFC 7592).',
      ),
    security_profile: z.enum(['spec', 'fapi2']).describe(SECURITY_PROFILE),
    jwks: jwksSchema.nullable().describe('The public signing keys of a fapi2 TPP; null for a spec TPP.'),
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
    description:
      'Operator only. Returns the webhook secret and, for a spec TPP, the TPP access token (tpk_…), each shown this once. ' +
      'A fapi2 TPP (security_profile fapi2, with jwks) gets no tpk_: it authenticates at POST /ob/token with private_key_jwt and uses client_credentials access tokens. ' +
      'TPPs may also register themselves with a directory-signed software statement (POST /ob/register).',
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
        security_profile: z.string().nullish().describe(`${SECURITY_PROFILE} Default spec; fixed at registration.`),
        jwks: z
          .record(z.string(), z.unknown())
          .nullish()
          .describe(
            'fapi2 only, and required there: a JWK Set {keys: [...]} of 1-10 public keys, kty EC (P-256, ES256), RSA (≥ 2048 bits, PS256) or OKP (Ed25519, EdDSA), ' +
              'each with a unique kid; private members (d, p, q, ...) are refused (400 VALIDATION_ERROR naming the key).',
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
        security_profile: z.enum(['spec', 'fapi2']),
        jwks: jwksSchema.nullable(),
        created_at: z.string().describe('ISO 8601 UTC.'),
        tpp_access_token: z
          .string()
          .nullable()
          .describe('tpk_…, for Authorization: Bearer. Shown once. null for a fapi2 TPP (no tpk_).'),
        webhook_secret: z.string().describe('whsec_…. Shown once.'),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/tpps/{id}',
    tag: 'Open Banking',
    summary: 'Read a TPP',
    description:
      'An operator or the TPP itself (a spec TPP with its tpk_ token, a fapi2 TPP with its client_credentials token; another TPP gets 404). ' +
      'Shows its security profile and, for a fapi2 TPP, its public keys; never a secret.',
    auth: [['adminKey'], ['tppToken']],
    params: idParams,
    operation: `query GetTpp($id: ID!) { tpp(id: $id) { ...TppRecord } }
${TPP_RECORD}`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ tpp }) => tpp,
    status: 200,
    response: tppRecord,
    errors: ['INVALID_API_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'TPP_NOT_FOUND'],
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
