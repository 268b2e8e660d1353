import { z } from 'zod';
import { defineRoute, type GraphQLData } from '../route';
import { CONSENT_LIFECYCLE_FIELDS, consentLifecycleShape } from './consent-lifecycle';

export const CONSENT_RECORD = `fragment ConsentRecord on Consent {
  ${CONSENT_LIFECYCLE_FIELDS} scopes accountIds
}`;

const SCOPE_LIST = 'accounts:read, balances:read, transactions:read, payments:write';

export const consentRecord = z
  .object({
    ...consentLifecycleShape,
    scopes: z.array(z.string()).describe(`Subset of ${SCOPE_LIST}.`),
    account_ids: z.array(z.string()).describe('Consented accounts (acc_…); empty until the customer approves.'),
  })
  .strict();

export const consentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/ob/consents',
    tag: 'Open Banking',
    summary: 'Create a consent request',
    description:
      "The TPP asks for access to a customer's accounts at one bank and sends the customer to consent_url. redirect_uri must equal, character for character, one registered for the TPP. " +
      'scopes must be supported by the bank (ob_scopes_supported), expiry_days at most its max_consent_expiry_days. PKCE: S256 only; keep the code_verifier, it is needed at POST /ob/token.',
    auth: [['tppToken']],
    body: z
      .object({
        bank_handle: z.string(),
        scopes: z.array(z.string()).describe(`Non-empty subset of ${SCOPE_LIST}.`),
        redirect_uri: z.string().describe("Exactly one of the TPP's registered redirect URIs."),
        state: z.string().describe('1-512 characters, echoed back unchanged to redirect_uri.'),
        code_challenge: z.string().describe('BASE64URL(SHA-256(code_verifier)): 43 characters.'),
        code_challenge_method: z.string().describe('S256 (anything else: 400 PKCE_METHOD_REJECTED).'),
        expiry_days: z.number().int().describe("1 up to the bank's max_consent_expiry_days."),
      })
      .strict(),
    operation: `mutation CreateConsent($input: CreateConsentInput!) { createConsent(input: $input) { ...ConsentRecord } }
${CONSENT_RECORD}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ createConsent }) => createConsent,
    status: 201,
    response: consentRecord,
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'PKCE_METHOD_REJECTED', 'BANK_NOT_REGISTERED', 'BANK_NOT_PARTICIPATING'],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/consents/{consent_id}',
    tag: 'Open Banking',
    summary: 'Read a consent',
    description:
      "With the TPP token, the TPP's own consents only: another TPP's consent is 404 CONSENT_NOT_FOUND, like an unknown one. " +
      'With an access token (and X-Consent-Id), the consent it was issued for.',
    auth: [['tppToken'], ['obToken', 'consentId']],
    params: z.object({ consent_id: z.string().describe('con_…') }).strict(),
    operation: `query GetConsent($id: ID!) { consent(id: $id) { ...ConsentRecord } }
${CONSENT_RECORD}`,
    variables: ({ params }) => ({ id: params.consentId }),
    result: ({ consent }) => consent,
    status: 200,
    response: consentRecord,
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'CONSENT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/consents',
    tag: 'Open Banking',
    summary: "List the TPP's consents",
    description:
      'Newest first. Pass pagination.next_cursor as cursor for the next page: pages never overlap or skip, whatever is created meanwhile.',
    auth: [['tppToken']],
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1-100 (default 20).'),
        cursor: z.string().optional().describe('next_cursor of the previous page (a consent id).'),
      })
      .strict(),
    operation: `query ListConsents($first: Int, $after: String) {
  consents(first: $first, after: $after) { edges { node { ...ConsentRecord } } pageInfo { hasNextPage endCursor } }
}
${CONSENT_RECORD}`,
    variables: ({ query }) => ({ first: query.limit ?? null, after: query.cursor ?? null }),
    result: ({ consents }) => ({
      consents: consents.edges.map((edge: GraphQLData) => edge.node),
      pagination: {
        nextCursor: consents.pageInfo.hasNextPage ? consents.pageInfo.endCursor : null,
        hasMore: consents.pageInfo.hasNextPage,
      },
    }),
    status: 200,
    response: z
      .object({
        consents: z.array(consentRecord),
        pagination: z
          .object({ next_cursor: z.string().nullable().describe('null on the last page.'), has_more: z.boolean() })
          .strict(),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
];
