import { sample } from 'openapi-sampler';
import { ERROR_CODES, type ErrorCode } from '@gateway/kernel';
/** A JSON Schema object (the document's own JsonSchema; not imported from there, which imports this). */
type JsonSchema = Record<string, any>;

/**
 * Examples for the OpenAPI document, built from the same schemas that validate the requests and
 * answers (so an example cannot drift from its schema): openapi-sampler fills every field, and
 * the field names below give the values a reader recognises (ids with their prefixes, an IBAN,
 * minor units) instead of "string".
 */

const TIME = '2026-11-24T09:30:00.000Z';

/** Values by field name (exact), tried before the patterns below. */
const BY_NAME: Record<string, unknown> = {
  session_id: 'ops_4mQ8yXbT2LwZk9RfVa1cPn3E',
  merchant_id: 'mer_7HcD2kLp9QwErT5yUiOa3sXz',
  tpp_id: 'tpp_2JkL9mNb4VcX7zQw1ErT6yUi',
  consent_id: 'con_8PoI7uYt6ReW5qAs4DfG3hJk',
  funds_confirmation_id: 'fcf_3EdC4rfV5tgB6yhN7ujM8ikO',
  expiry: '2027-02-28T23:59:59Z',
  funds_available: true,
  payment_order_id: 'po_5TgB6yHn7UjM8iKo9LpQ1aZx',
  mandate_id: 'mdt_3WsX4edC5rfV6tgB7yhN8ujM',
  charge_id: 'chg_9OlP0ikM1ujN2yhB3tgV4rfC',
  refund_id: 'rfd_5YhN6ujM7ikO8lP9qA0sW1eD',
  account_id: 'acc_6YhN7ujM8ikO9lP0qA1sW2eD',
  delivery_id: 'whd_1QaZ2wsX3edC4rfV5tgB6yhN',
  event_id: 'evt_4RfV5tgB6yhN7ujM8ikO9lP0',
  cycle_id: 'stl_2WsX3edC4rfV5tgB6yhN7ujM',
  transaction_id: 'txn_7UjM8ikO9lP0qA1sW2eD3rF4',
  request_id: 'req_8IkO9lP0qA1sW2eD3rF4tG5y',
  api_key: 'mk_test_Xq7LmN2pR8sT4vW9yZ1aB3cD5eF6gH0j',
  bank_key: 'sbk_oasis_Lp9QwErT5yUiOa3sXz7HcD2k',
  internal_key: 'sik_N2pR8sT4vW9yZ1aB3cD5eF6gH0jXq7L',
  webhook_secret: 'whsec_5eF6gH0jXq7LmN2pR8sT4vW9yZ1aB3cD',
  tpp_access_token: 'tpk_R8sT4vW9yZ1aB3cD5eF6gH0jXq7LmN2p',
  admin_key_id: 'adk_5tgB6yhN7ujM8ikO9lP0qA1s',
  admin_key: 'adm_H0jXq7LmN2pR8sT4vW9yZ1aB3cD5eF6g',
  created_by: 'adk_1QaZ2wsX3edC4rfV5tgB6yhN',
  access_token: 'at_W9yZ1aB3cD5eF6gH0jXq7LmN2pR8sT4v',
  refresh_token: 'rt_B3cD5eF6gH0jXq7LmN2pR8sT4vW9yZ1a',
  session_token: 'sst_D5eF6gH0jXq7LmN2pR8sT4vW9yZ1aB3c',
  amount: 12500,
  amount_refunded: 2500,
  max_amount: 50000,
  currency: 'LYD',
  handle: 'oasis',
  bank_handle: 'oasis',
  creditor_bank: 'atlas',
  debtor_bank: 'oasis',
  display_name: 'Oasis Bank',
  name: 'Demo Shop',
  institution_code: '201',
  country: 'LY',
  contact_email: 'ops@oasis.example',
  alias: 'amina@oasis',
  customer_alias: 'amina@oasis',
  phone: '+218911234567',
  otp: '246810',
  description: 'Two coffees',
  reference: 'order-1042',
  reason: 'Item returned',
  start_date: '2026-12-01',
  date: '2026-11-24',
  otp_attempts_left: 3,
};

/** Values by the shape of a field's name. */
const BY_PATTERN: Array<[RegExp, unknown]> = [
  [/iban$/, 'LY83002048000020100120361'],
  [/_at$/, TIME],
  [/_url$|^url$/, 'https://shop.example/payments/return'],
  [/_uris?$/, 'https://app.example/callback'],
  [/_date$/, '2026-11-24'],
];

function hintFor(name: string, property: JsonSchema): unknown {
  const value = name in BY_NAME ? BY_NAME[name] : BY_PATTERN.find(([pattern]) => pattern.test(name))?.[1];
  if (value === undefined) return undefined;
  // Only where the hint fits the field's own type: enums, patterns and formats keep their sample.
  const types = ([] as unknown[]).concat(property.type ?? property.anyOf?.map((s: JsonSchema) => s.type) ?? []);
  // A nullable one too (anyOf: [the enum, null]).
  const constrained = (member: JsonSchema) =>
    member.enum || member.const !== undefined || member.pattern || member.format;
  if (constrained(property) || property.anyOf?.some(constrained)) return undefined;
  if (typeof value === 'string' && types.includes('string')) return value;
  if (typeof value === 'number' && (types.includes('integer') || types.includes('number'))) return value;
  if (typeof value === 'string' && types.includes('array')) return [value];
  return undefined;
}

/**
 * A plain integer field (a count, days): zod's .int() bounds it by the safe-integer range, whose
 * minimum openapi-sampler would show (-9007199254740991). A small number within its bounds instead.
 */
function integerHint(field: JsonSchema): number | undefined {
  const property: JsonSchema | undefined =
    field.type === 'integer' ? field : field.anyOf?.find((member: JsonSchema) => member.type === 'integer');
  if (!property || property.enum || property.const !== undefined) return undefined;
  const low = typeof property.minimum === 'number' ? property.minimum : -Infinity;
  const high = typeof property.maximum === 'number' ? property.maximum : Infinity;
  return Math.min(Math.max(30, low), high);
}

/** A copy of the schema with `examples` on the fields named in the tables above. */
function withHints(schema: JsonSchema): JsonSchema {
  if (!schema || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map(withHints);
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && value && typeof value === 'object') {
      copy.properties = Object.fromEntries(
        Object.entries<JsonSchema>(value).map(([name, property]) => {
          const hinted = withHints(property);
          const hint = hintFor(name, property) ?? integerHint(property);
          return [name, hint === undefined || hinted.examples ? hinted : { ...hinted, examples: [hint] }];
        }),
      );
    } else copy[key] = typeof value === 'object' && value !== null ? withHints(value) : value;
  }
  return copy;
}

/** An example value of a schema (refs resolved against `document`). */
export function exampleOf(schema: JsonSchema, document?: JsonSchema): unknown {
  return sample(
    withHints(schema) as never,
    { skipReadOnly: false, skipWriteOnly: false, quiet: true },
    document as never,
  );
}

/** What a client may be told in `detail` for a code: the field named for VALIDATION_ERROR, else the code's own message. */
const DETAIL: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'amount: must be a positive integer of minor units',
  RATE_LIMITED: 'limit of 100 requests reached; retry in 42 s',
};

/** The spec's error body for `code`, as the named examples of an error response. */
export function errorExamples(codes: readonly ErrorCode[]): Record<string, { summary: string; value: unknown }> {
  return Object.fromEntries(
    codes.map((code) => [
      code,
      {
        summary: `${code}: ${ERROR_CODES[code].message}`,
        value: {
          error: {
            code,
            message: ERROR_CODES[code].message,
            detail: DETAIL[code] ?? ERROR_CODES[code].message,
            request_id: BY_NAME.request_id,
          },
        },
      },
    ]),
  );
}
