import { z } from 'zod';
import { defineRoute } from '../route';

export const handleParams = z.object({ handle: z.string().describe('Bank handle (bank_handle).') }).strict();

const CAPABILITIES =
  'bankHandle obEnabled obScopesSupported scaExemptionLimit scaExemptionMaxCount scaExemptionCumulativeLimit maxConsentExpiryDays';
// `bankHandle: handle`: REST names the bank's handle as the registration request does.
export const BANK_RECORD = `fragment BankRecord on Bank {
  bankHandle: handle displayName country institutionCode status minAmount maxAmount createdAt
  coreBaseUrl sandboxCoreBaseUrl settlementAccountIban settlementAccounts { currency iban } contactEmail capabilities { ${CAPABILITIES} }
}`;

const capabilities = z
  .object({
    bank_handle: z.string(),
    ob_enabled: z.boolean(),
    ob_scopes_supported: z
      .array(z.string())
      .describe('Subset of accounts:read, balances:read, transactions:read, payments:write.'),
    sca_exemption_limit: z
      .number()
      .int()
      .describe('Open Banking payment orders (planned) above this amount, in minor units, will require SCA.'),
    sca_exemption_max_count: z
      .number()
      .int()
      .describe(
        'Exempted Open Banking payment orders one consent may make since its last SCA (the approval, or an order authorised at sca_url); the next one needs SCA.',
      ),
    sca_exemption_cumulative_limit: z
      .number()
      .int()
      .describe(
        "Cumulative amount, in minor units of the order's currency, of the exempted Open Banking payment orders of one consent since its last SCA: an order that would take it above needs SCA.",
      ),
    max_consent_expiry_days: z.number().int().describe('Upper bound of expiry_days for a consent at this bank.'),
  })
  .strict()
  .describe('Bank capabilities');

const settlementAccounts = z
  .array(
    z
      .object({
        currency: z.string().describe('LYD, USD or EUR.'),
        iban: z.string().describe("At the bank's institution code."),
      })
      .strict(),
  )
  .describe(
    'Settlement accounts for particular currencies, one per currency; a position in a currency without one is booked on settlement_account_iban.',
  );

export const bankRecord = z
  .object({
    bank_handle: z.string(),
    display_name: z.string(),
    country: z.string(),
    institution_code: z.string().describe('Three digits, as inside the IBANs of this bank.'),
    status: z.string().describe('ACTIVE or SUSPENDED.'),
    min_amount: z.number().int(),
    max_amount: z.number().int(),
    created_at: z.string().describe('ISO 8601 UTC.'),
    core_base_url: z.string(),
    sandbox_core_base_url: z
      .string()
      .nullable()
      .describe(
        "The bank's own test core, where test-mode calls go; null: the gateway's built-in test bank answers for it.",
      ),
    settlement_account_iban: z.string(),
    settlement_accounts: settlementAccounts,
    contact_email: z.string(),
    capabilities,
  })
  .strict();

const capabilityChanges = {
  ob_enabled: z.boolean().nullish(),
  ob_scopes_supported: z.array(z.string()).nullish(),
  sca_exemption_limit: z.number().int().nullish().describe('Minor units.'),
  sca_exemption_max_count: z
    .number()
    .int()
    .nullish()
    .describe(
      'Exempted Open Banking payment orders one consent may make since its last SCA (the approval, or an order authorised at sca_url); the next one needs SCA; 0 to 1000, default 5.',
    ),
  sca_exemption_cumulative_limit: z
    .number()
    .int()
    .nullish()
    .describe(
      "Cumulative amount, in minor units of the order's currency, of the exempted Open Banking payment orders of one consent since its last SCA: an order that would take it above needs SCA; default 100000 (the PSD2 RTS's 100 in LYD's minor units).",
    ),
  max_consent_expiry_days: z.number().int().nullish(),
};

export const bankRoutes = [
  defineRoute({
    method: 'POST',
    path: '/banks',
    tag: 'Banks',
    summary: 'Register a bank',
    description:
      'Operator only. Returns the bank key (sbk_<handle>_<random>) and the internal key, each shown this once.',
    auth: [['adminKey']],
    body: z
      .object({
        bank_handle: z.string().describe('2-32 characters: lowercase letters, digits and -, starting with a letter.'),
        display_name: z.string(),
        country: z.string().describe('LY'),
        core_base_url: z
          .string()
          .describe(
            'Base URL of the bank core callback server; https in production. Loopback, private and link-local hosts only with PRIVATE_TARGETS, cloud metadata never (400 VALIDATION_ERROR).',
          ),
        settlement_account_iban: z
          .string()
          .describe("IBAN of the bank's settlement account, at this bank's institution code."),
        settlement_accounts: settlementAccounts.nullish(),
        contact_email: z.string(),
        institution_code: z.string().describe('Three digits, as inside the IBANs of this bank.'),
        internal_key: z
          .string()
          .nullish()
          .describe('Pre-shared internal key (at least 24 characters); generated when omitted.'),
        sandbox_core_base_url: z
          .string()
          .nullish()
          .describe(
            "The bank's own test core (same interface, another URL than core_base_url): test-mode payments go there. Omitted: the gateway's built-in test bank answers for this bank.",
          ),
        sandbox_internal_key: z
          .string()
          .nullish()
          .describe(
            'Internal key of the sandbox core (at least 24 characters, not the live one); generated when omitted with a sandbox_core_base_url.',
          ),
        min_amount: z.number().int().nullish().describe('Minor units.'),
        max_amount: z.number().int().nullish().describe('Minor units.'),
        ...capabilityChanges,
      })
      .strict(),
    operation: `mutation RegisterBank($input: RegisterBankInput!) { registerBank(input: $input) { bank { ...BankRecord } bankKey internalKey sandboxInternalKey } }
${BANK_RECORD}`,
    variables: ({ body }) => ({ input: body }),
    result: ({ registerBank }) => ({
      ...registerBank.bank,
      bankKey: registerBank.bankKey,
      internalKey: registerBank.internalKey,
      sandboxInternalKey: registerBank.sandboxInternalKey,
    }),
    status: 201,
    response: bankRecord.extend({
      bank_key: z.string().describe('Shown once.'),
      internal_key: z.string().describe('Shown once.'),
      sandbox_internal_key: z
        .string()
        .nullable()
        .describe("The sandbox core's internal key, shown once; null without a sandbox core."),
    }),
    errors: ['UNAUTHORIZED', 'FORBIDDEN', 'BANK_ALREADY_REGISTERED'],
  }),
  defineRoute({
    method: 'GET',
    path: '/banks/{handle}',
    tag: 'Banks',
    summary: 'Read a bank record',
    description: 'The bank itself (its bank key) or an operator. Never returns a key.',
    auth: [['bankKey'], ['adminKey']],
    params: handleParams,
    operation: `query GetBank($handle: String!) { bank(handle: $handle) { ...BankRecord } }
${BANK_RECORD}`,
    variables: ({ params }) => ({ handle: params.handle }),
    result: ({ bank }) => bank,
    status: 200,
    response: bankRecord,
    errors: ['INVALID_BANK_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'BANK_NOT_REGISTERED'],
  }),
  defineRoute({
    method: 'GET',
    path: '/banks/{handle}/capabilities',
    tag: 'Banks',
    summary: "Read a bank's Open Banking capabilities",
    auth: [],
    params: handleParams,
    operation: `query GetBankCapabilities($handle: String!) { bankCapabilities(handle: $handle) { ${CAPABILITIES} } }`,
    variables: ({ params }) => ({ handle: params.handle }),
    result: ({ bankCapabilities }) => bankCapabilities,
    status: 200,
    response: capabilities,
    errors: ['BANK_NOT_REGISTERED'],
  }),
  defineRoute({
    method: 'PATCH',
    path: '/banks/{handle}',
    tag: 'Banks',
    summary: "Change a bank's Open Banking capabilities or its sandbox core",
    description:
      'The bank itself. Omitted fields stay as they are. Returns the capabilities object. ' +
      "sandbox_core_base_url with sandbox_internal_key points the bank's test world at its own test core (never the live URL or key; the previous sandbox key stops working at once); " +
      'null goes back to the built-in test bank. The bank record (GET /banks/{handle}) shows it. ' +
      'The URL passes the egress check of every URL the gateway calls (loopback, private and link-local hosts only with PRIVATE_TARGETS, cloud metadata never: 400 VALIDATION_ERROR naming sandbox_core_base_url); each change is audited and logged at warn.',
    auth: [['bankKey']],
    params: handleParams,
    body: z
      .object({
        ...capabilityChanges,
        sandbox_core_base_url: z
          .string()
          .nullable()
          .optional()
          .describe("The bank's own test core; null: none (the built-in test bank answers for the bank)."),
        sandbox_internal_key: z
          .string()
          .optional()
          .describe(
            'Its internal key (at least 24 characters, not the live one); required with sandbox_core_base_url.',
          ),
      })
      .strict(),
    operation: `mutation UpdateBankCapabilities($handle: String!, $input: UpdateBankCapabilitiesInput!) { updateBankCapabilities(handle: $handle, input: $input) { ${CAPABILITIES} } }`,
    variables: ({ params, body }) => ({ handle: params.handle, input: body }),
    result: ({ updateBankCapabilities }) => updateBankCapabilities,
    status: 200,
    response: capabilities,
    errors: ['INVALID_BANK_KEY', 'FORBIDDEN', 'BANK_NOT_REGISTERED'],
  }),
  defineRoute({
    method: 'POST',
    path: '/banks/{handle}/rotate-key',
    tag: 'Banks',
    summary: "Rotate a bank's key",
    description:
      'The bank itself, or an operator giving the bank a new key after POST /banks/{handle}/revoke-key. The new key is returned once; the old one stops working at once.',
    auth: [['bankKey'], ['adminKey']],
    params: handleParams,
    operation: `mutation RotateBankKey($handle: String!) { rotateBankKey(handle: $handle) { bankKey } }`,
    variables: ({ params }) => ({ handle: params.handle }),
    result: ({ rotateBankKey }) => rotateBankKey,
    status: 200,
    response: z.object({ bank_key: z.string().describe('The new bank key. Shown once.') }).strict(),
    errors: ['INVALID_BANK_KEY', 'UNAUTHORIZED', 'FORBIDDEN', 'BANK_NOT_REGISTERED'],
  }),
];
