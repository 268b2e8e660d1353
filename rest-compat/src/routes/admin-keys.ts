import { z } from 'zod';
import { defineRoute } from '../route';

const ADMIN_KEY_RECORD = `fragment AdminKeyRecord on AdminKey { adminKeyId: id name createdAt revokedAt }`;

const adminKeyRecord = z
  .object({
    admin_key_id: z.string().describe('adk_…'),
    name: z.string().describe('The operator name the logs and the audit log show.'),
    created_at: z.string().describe('ISO 8601 UTC.'),
    revoked_at: z.string().nullable().describe('When it was revoked (ISO 8601 UTC); null while it works.'),
  })
  .strict();

const idParams = z.object({ id: z.string().describe('Admin key id (adk_…).') }).strict();

/** Named admin keys (API-CONTRACT "Operator controls"): one per operator; ADMIN_KEY stays the first. */
export const adminKeyRoutes = [
  defineRoute({
    method: 'POST',
    path: '/admin/keys',
    tag: 'Operations',
    summary: 'Create a named admin key',
    description:
      'Operator only. One key per operator: everything done with it is logged and audited under its name. The key is returned this once (only its hash is kept); ' +
      'use it as X-Service-Admin-Key. The configured ADMIN_KEY stays the first admin key.',
    auth: [['adminKey']],
    body: z
      .object({
        name: z
          .string()
          .describe('Who holds the key, 1-64 printable characters; unique among live keys, and not ADMIN_KEY.'),
      })
      .strict(),
    operation: `mutation CreateAdminKey($input: CreateAdminKeyInput!) { createAdminKey(input: $input) { adminKeyId: id name createdAt adminKey } }`,
    variables: ({ body }) => ({ input: body }),
    result: ({ createAdminKey }) => createAdminKey,
    status: 201,
    response: z
      .object({
        admin_key_id: z.string().describe('adk_…'),
        name: z.string(),
        admin_key: z.string().describe('adk_sec_…, for X-Service-Admin-Key. Shown once.'),
        created_at: z.string().describe('ISO 8601 UTC.'),
      })
      .strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'ADMIN_KEY_NAME_TAKEN'],
  }),
  defineRoute({
    method: 'GET',
    path: '/admin/keys',
    tag: 'Operations',
    summary: 'List named admin keys',
    description: 'Operator only. Newest first, revoked keys included; never a secret. ADMIN_KEY is not listed.',
    auth: [['adminKey']],
    operation: `query AdminKeys { adminKeys { ...AdminKeyRecord } }
${ADMIN_KEY_RECORD}`,
    variables: () => ({}),
    result: ({ adminKeys }) => ({ adminKeys }),
    status: 200,
    response: z.object({ admin_keys: z.array(adminKeyRecord) }).strict(),
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/admin/keys/{id}',
    tag: 'Operations',
    summary: 'Revoke a named admin key',
    description:
      'Operator only. Revoked at once: the next request with the key is refused (401 UNAUTHORIZED), on REST and GraphQL alike. ' +
      'Revoking a revoked key answers its record again (200).',
    auth: [['adminKey']],
    params: idParams,
    operation: `mutation RevokeAdminKey($id: ID!) { revokeAdminKey(id: $id) { ...AdminKeyRecord } }
${ADMIN_KEY_RECORD}`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ revokeAdminKey }) => revokeAdminKey,
    status: 200,
    response: adminKeyRecord,
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'ADMIN_KEY_NOT_FOUND'],
  }),
];
