import { z } from 'zod';
import { defineRoute } from '../route';

const ACCOUNT_FIELDS = 'accountId iban currency accountType displayName';
const AIS_ERRORS = [
  'UNAUTHORIZED',
  'TOKEN_EXPIRED',
  'TOKEN_REVOKED',
  'CONSENT_EXPIRED',
  'FORBIDDEN',
  'SCOPE_INSUFFICIENT',
  'CBS_TIMEOUT',
  'CBS_ERROR',
  // The account's bank suspended by the operator: no new reads until it is resumed.
  'BANK_NOT_PARTICIPATING',
] as const;
const AUTH_NOTE =
  'Authorization: Bearer <access token> and X-Consent-Id, both required; the access token only in the header (?access_token= is refused with 400). ' +
  'Every 401 carries WWW-Authenticate: Bearer error="invalid_token"; x-fapi-interaction-id is played back (a fresh UUID when absent). ' +
  'Data is read live from the bank core: a core that does not answer gives 503 CBS_TIMEOUT, one that fails 502 CBS_ERROR.';

const accountId = z
  .object({ account_id: z.string().describe('A consented account (acc_…); any other id is 404 ACCOUNT_NOT_FOUND.') })
  .strict();

const accountRecord = z
  .object({
    account_id: z.string().describe('acc_…: stable for this IBAN within this consent.'),
    iban: z.string(),
    currency: z.string().describe('ISO 4217.'),
    account_type: z.enum(['CURRENT']),
    display_name: z.string().describe("The holder's name as the bank gives it, else the IBAN's last four characters."),
  })
  .strict();

export const accountRoutes = [
  defineRoute({
    method: 'GET',
    path: '/ob/accounts',
    tag: 'Open Banking',
    summary: 'List the consented accounts',
    description: `Scope accounts:read. The accounts the customer consented to share. ${AUTH_NOTE}`,
    auth: [['obToken', 'consentId']],
    fapi: true,
    operation: `query ObAccounts { obAccounts { ${ACCOUNT_FIELDS} } }`,
    variables: () => ({}),
    result: ({ obAccounts }) => ({ accounts: obAccounts }),
    status: 200,
    response: z.object({ accounts: z.array(accountRecord) }).strict(),
    errors: [...AIS_ERRORS],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/accounts/{account_id}/balances',
    tag: 'Open Banking',
    summary: 'Read the balances of a consented account',
    description: `Scope balances:read. ${AUTH_NOTE}`,
    auth: [['obToken', 'consentId']],
    fapi: true,
    params: accountId,
    operation: `query ObAccountBalances($accountId: ID!) { obAccountBalances(accountId: $accountId) { accountId balances { type amount currency } } }`,
    variables: ({ params }) => ({ accountId: params.accountId }),
    result: ({ obAccountBalances }) => obAccountBalances,
    status: 200,
    response: z
      .object({
        account_id: z.string(),
        balances: z.array(
          z
            .object({
              type: z.enum(['AVAILABLE']),
              amount: z.number().int().describe('Integer minor units; negative when overdrawn.'),
              currency: z.string().describe('ISO 4217.'),
            })
            .strict(),
        ),
      })
      .strict(),
    errors: [...AIS_ERRORS, 'ACCOUNT_NOT_FOUND'],
  }),
  defineRoute({
    method: 'GET',
    path: '/ob/accounts/{account_id}/transactions',
    tag: 'Open Banking',
    summary: 'List the transactions of a consented account',
    description:
      `Scope transactions:read. Booked transactions between fromDate and toDate (both inclusive), newest first, at most count. ` +
      `Dates are ISO 8601 dates (2024-03-01) or date-times (2024-03-01T10:43:07Z, any offset), a date-time counting for its calendar date. ${AUTH_NOTE}`,
    auth: [['obToken', 'consentId']],
    fapi: true,
    params: accountId,
    query: z
      .object({
        fromDate: z
          .string()
          .optional()
          .describe('ISO 8601 date or date-time; default 90 days before toDate. After toDate: 400 VALIDATION_ERROR.'),
        toDate: z.string().optional().describe('ISO 8601 date or date-time; default today (UTC).'),
        count: z.coerce.number().int().min(1).max(500).optional().describe('1-500, default 50.'),
      })
      .strict(),
    operation: `query ObAccountTransactions($accountId: ID!, $fromDate: String, $toDate: String, $count: Int) {
  obAccountTransactions(accountId: $accountId, fromDate: $fromDate, toDate: $toDate, count: $count) {
    accountId transactions { transactionId bookingDate amount currency creditDebitIndicator description }
  }
}`,
    variables: ({ params, query }) => ({
      accountId: params.accountId,
      fromDate: query.fromDate ?? null,
      toDate: query.toDate ?? null,
      count: query.count ?? null,
    }),
    result: ({ obAccountTransactions }) => obAccountTransactions,
    status: 200,
    response: z
      .object({
        account_id: z.string(),
        transactions: z.array(
          z
            .object({
              transaction_id: z.string(),
              booking_date: z.string().describe('YYYY-MM-DD.'),
              amount: z.number().int().describe('Integer minor units, always positive.'),
              currency: z.string().describe('ISO 4217.'),
              credit_debit_indicator: z.enum(['CREDIT', 'DEBIT']),
              description: z.string(),
            })
            .strict(),
        ),
      })
      .strict(),
    errors: [...AIS_ERRORS, 'ACCOUNT_NOT_FOUND'],
  }),
];
