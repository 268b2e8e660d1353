import { z } from 'zod';
import { defineRoute } from '../route';

const ADMIN_KEY_RECORD = `fragment AdminKeyRecord on AdminKey { adminKeyId: id name createdAt revokedAt createdBy }`;

const adminKeyRecord = z
  .object({
    admin_key_id: z.string().describe('adk_…'),
    name: z.string().describe('The operator name the logs and the audit log show.'),
    created_at: z.string().describe('ISO 8601 UTC.'),
    revoked_at: z.string().nullable().describe('When it was revoked (ISO 8601 UTC); null while it works.'),
    created_by: z
      .string()
      .nullable()
      .describe(
        'The admin key that created it: its admin_key_id, or ADMIN_KEY for the configured key; revoking that key revokes this one. Null only when not known (created before lineage was recorded).',
      ),
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
      'use it as X-Service-Admin-Key. The configured ADMIN_KEY stays the first admin key. The new key records the key that created it (created_by): ' +
      'revoking that key revokes this one too.',
    auth: [['adminKey']],
    body: z
      .object({
        name: z
          .string()
          .describe(
            'Who holds the key: 3-40 characters of a-z, 0-9, ".", "_" and "-"; unique among live keys; never ADMIN_KEY in any case or spelling (400 VALIDATION_ERROR naming name).',
          ),
      })
      .strict(),
    operation: `mutation CreateAdminKey($input: CreateAdminKeyInput!) { createAdminKey(input: $input) { adminKeyId: id name createdAt adminKey createdBy } }`,
    variables: ({ body }) => ({ input: body }),
    result: ({ createAdminKey }) => createAdminKey,
    status: 201,
    response: z
      .object({
        admin_key_id: z.string().describe('adk_…'),
        name: z.string(),
        admin_key: z
          .string()
          .describe(
            'adm_… (the one prefix of every admin key, for secret scanners), for X-Service-Admin-Key. Shown once.',
          ),
        created_at: z.string().describe('ISO 8601 UTC.'),
        created_by: z.string().describe('The admin key that created it: its admin_key_id, or ADMIN_KEY.'),
      })
      .strict(),
    errors: ['VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'ADMIN_KEY_NAME_TAKEN'],
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
    summary: 'Revoke a named admin key and the keys it created',
    description:
      'Operator only. Revoked at once, with every key it created and the keys those created, transitively, in one transaction, each audited (admin_key.revoked): ' +
      'the next request with any of them is refused (401 UNAUTHORIZED), on REST and GraphQL alike, and their open subscriptions close within 5 s (4403). ' +
      'revoked_with lists them. Revoking a revoked key answers the same again (200).',
    auth: [['adminKey']],
    params: idParams,
    operation: `mutation RevokeAdminKey($id: ID!) {
  revokeAdminKey(id: $id) { adminKeyId: id name createdAt revokedAt createdBy revokedWith { ...AdminKeyRecord } }
}
${ADMIN_KEY_RECORD}`,
    variables: ({ params }) => ({ id: params.id }),
    result: ({ revokeAdminKey }) => revokeAdminKey,
    status: 200,
    response: adminKeyRecord.extend({
      revoked_with: z
        .array(adminKeyRecord)
        .describe(
          'Every key it created, and theirs, transitively, oldest first: all revoked with it (one revoked earlier keeps its revoked_at).',
        ),
    }),
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'ADMIN_KEY_NOT_FOUND'],
  }),
];
