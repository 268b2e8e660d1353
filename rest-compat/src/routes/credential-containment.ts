import { z } from 'zod';
import { defineRoute } from '../route';

const handleParams = z.object({ handle: z.string().describe('Bank handle (bank_handle).') }).strict();
const tppParams = z.object({ id: z.string().describe('TPP id (tpp_…).') }).strict();

/**
 * Containment of leaked credentials (API-CONTRACT "Operator controls"): revoke a bank key,
 * rotate a bank's internal key with a grace window for callbacks, rotate a TPP's token.
 */
export const credentialContainmentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/banks/{handle}/revoke-key',
    tag: 'Banks',
    summary: "Revoke a bank's key",
    description:
      'Operator only. The bank key stops working at once (401 INVALID_BANK_KEY on REST and GraphQL); the operator then gives the bank a new one with POST /banks/{handle}/rotate-key.',
    auth: [['adminKey']],
    params: handleParams,
    operation: `mutation RevokeBankKey($handle: String!) { revokeBankKey(handle: $handle) { bankHandle revokedKeys } }`,
    variables: ({ params }) => ({ handle: params.handle }),
    result: ({ revokeBankKey }) => revokeBankKey,
    status: 200,
    response: z
      .object({
        bank_handle: z.string(),
        revoked_keys: z.number().int().describe('How many live bank keys were revoked (0: none was live).'),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'BANK_NOT_REGISTERED'],
  }),
  defineRoute({
    method: 'POST',
    path: '/banks/{handle}/rotate-internal-key',
    tag: 'Banks',
    summary: "Rotate a bank's internal key",
    description:
      'The bank itself or an operator. The new X-Service-Internal-Key is returned once and the gateway presents it on every core call from now on; ' +
      "the previous key is still accepted on the core's callbacks until previous_key_expires_at (INTERNAL_KEY_GRACE_SECONDS, default 86400). A sandbox core's key is not touched.",
    auth: [['bankKey'], ['adminKey']],
    params: handleParams,
    operation: `mutation RotateInternalKey($handle: String!) { rotateInternalKey(handle: $handle) { internalKey previousKeyExpiresAt } }`,
    variables: ({ params }) => ({ handle: params.handle }),
    result: ({ rotateInternalKey }) => rotateInternalKey,
    status: 200,
    response: z
      .object({
        internal_key: z.string().describe('The new internal key. Shown once.'),
        previous_key_expires_at: z
          .string()
          .describe("Until when the previous key is still accepted on the core's callbacks (ISO 8601 UTC)."),
      })
      .strict(),
    errors: ['INVALID_BANK_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'BANK_NOT_REGISTERED'],
  }),
  defineRoute({
    method: 'POST',
    path: '/ob/tpps/{id}/rotate-token',
    tag: 'Open Banking',
    summary: "Rotate a TPP's access token",
    description:
      'The TPP itself (its tpk_ token; another TPP gets 404) or an operator. The new tpk_ is returned once; the old one stops working at once (401 INVALID_API_KEY). ' +
      'A fapi2 TPP has no tpk_ and is refused (403 FORBIDDEN): it authenticates with private_key_jwt.',
    auth: [['tppToken'], ['adminKey']],
    params: tppParams,
    operation: `mutation RotateTppToken($id: ID!) { rotateTppToken(id: $id) { tppAccessToken } }`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ rotateTppToken }) => rotateTppToken,
    status: 200,
    response: z
      .object({ tpp_access_token: z.string().describe('The new TPP access token (tpk_…). Shown once.') })
      .strict(),
    errors: ['INVALID_API_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'TPP_NOT_FOUND'],
  }),
];
