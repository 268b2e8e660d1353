import { z } from 'zod';
import { defineRoute } from '../route';

const handleParams = z.object({ handle: z.string().describe('The alias handle (npt_handle).') }).strict();

const aliasRecord = z
  .object({
    npt_handle: z.string(),
    iban: z.string(),
    bank_handle: z.string(),
    institution_code: z.string(),
    customer_display_name: z.string().describe('Masked: "A*** B***".'),
    status: z.string().describe('ACTIVE or INACTIVE.'),
    created_at: z.string().describe('ISO 8601 UTC.'),
    deactivated_at: z.string().nullable(),
    bank_customer_ref: z.string(),
    phone: z.string().nullable(),
  })
  .strict();

export const identityRoutes = [
  defineRoute({
    method: 'POST',
    path: '/v1/identity/claim',
    tag: 'Identity registry',
    summary: "Claim an alias for one of the bank's customers",
    auth: [['bankKey']],
    body: z
      .object({
        npt_handle: z
          .string()
          .describe('3-32 characters: lowercase letters, digits, ".", "_" or "-", starting with a letter.'),
        iban: z.string().describe("The customer's IBAN, at the claiming bank."),
        customer_display_name: z.string(),
        bank_customer_ref: z.string().describe("The bank's own customer reference."),
        phone: z.string().nullish().describe('Mobile number in E.164.'),
      })
      .strict(),
    // `nptHandle: handle`: the record names the handle as the claim request does.
    operation: `mutation ClaimAlias($input: ClaimAliasInput!) {
  claimAlias(input: $input) { nptHandle: handle iban bankHandle institutionCode customerDisplayName status createdAt deactivatedAt bankCustomerRef phone }
}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ claimAlias }) => claimAlias,
    status: 201,
    response: aliasRecord,
    errors: [
      'INVALID_BANK_KEY',
      'FORBIDDEN',
      'HANDLE_INVALID',
      'HANDLE_TAKEN',
      'PHONE_TAKEN',
      'IBAN_INVALID',
      'IBAN_NOT_AT_BANK',
    ],
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/identity/resolve',
    tag: 'Identity registry',
    summary: 'Resolve an alias, phone number or IBAN',
    description: 'Public, limited per client IP. Give exactly one of alias, phone or iban.',
    auth: [],
    query: z
      .object({
        alias: z
          .string()
          .optional()
          .describe('handle, or handle@bank_handle to require the account to be at that bank.'),
        phone: z.string().optional().describe('E.164, e.g. +218912345678.'),
        iban: z.string().optional(),
      })
      .strict(),
    operation: `query ResolveAlias($alias: String, $phone: String, $iban: String) {
  resolveAlias(alias: $alias, phone: $phone, iban: $iban) { alias iban bankHandle institutionCode customerDisplayName }
}`,
    variables: ({ query }) => ({ alias: query.alias, phone: query.phone, iban: query.iban }),
    result: ({ resolveAlias }) => resolveAlias,
    status: 200,
    response: z
      .object({
        alias: z.string(),
        iban: z.string(),
        bank_handle: z.string(),
        institution_code: z.string(),
        customer_display_name: z.string().describe('Masked: "A*** B***".'),
      })
      .strict(),
    errors: ['ALIAS_NOT_FOUND', 'ALIAS_INACTIVE'],
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/identity/aliases/{handle}',
    tag: 'Identity registry',
    summary: 'Deactivate an alias',
    description: 'The owning bank only. Afterwards the alias resolves to ALIAS_INACTIVE.',
    auth: [['bankKey']],
    params: handleParams,
    operation: `mutation DeactivateAlias($handle: String!) { deactivateAlias(handle: $handle) { handle } }`,
    variables: ({ params }) => ({ handle: params.handle }),
    status: 204,
    errors: ['INVALID_BANK_KEY', 'FORBIDDEN', 'ALIAS_NOT_FOUND'],
  }),
];
