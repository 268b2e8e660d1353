import { CURRENCIES, z, type Currency } from '@gateway/kernel';

/**
 * The bank core interface as zod schemas: what the gateway sends (strict, exactly the spec's
 * fields) and what it accepts (liberal: every variant a core written from the spec may answer).
 * The client reads answers with these schemas and the published OpenAPI document is generated
 * from them, so the document cannot drift from what the client really accepts.
 *
 * Answer fields that are only read "when present" end in `.catch(undefined)`: a field of an
 * unexpected type is ignored rather than making the whole answer unreadable.
 */

const currency = z.enum(Object.keys(CURRENCIES) as [Currency, ...Currency[]]);
/** Integer minor units, as a JSON number or an integer string. */
const minorUnits = z.union([z.int(), z.string().regex(/^-?\d+$/)]);
const optionalText = (description: string) => z.string().optional().catch(undefined).describe(description);
const optionalId = (description: string) =>
  z.union([z.string(), z.number()]).optional().catch(undefined).describe(description);
const optionalDate = (description: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}/)
    .optional()
    .catch(undefined)
    .describe(description);

// ---- requests (exactly as sent) ----

export const verifyRequest = z
  .strictObject({
    customer_ref: z.string().min(1).max(128).describe("The bank's customer reference (from the identity registry)."),
    otp: z.string().min(1).max(64).describe('The one-time password the customer typed.'),
  })
  .describe('POST /customers/verify');

export const movementRequest = z
  .strictObject({
    iban: z.string().describe('Account to debit or credit, electronic format (no spaces, upper case).'),
    amount: z.int().positive().describe('Integer minor units.'),
    currency: currency.describe('ISO 4217 code.'),
    reference: z
      .string()
      .min(1)
      .max(128)
      .describe(
        'The deduplication key: the session id (ops_…), `ops_…:reversal` for a reversal, or `stl_…:<bank_handle>:<currency>` for settlement. ' +
          'A call may be sent again with the same reference (timeouts, 5xx): the core books it once.',
      ),
    description: z.string().max(500).describe('Free text for the statement.'),
  })
  .describe('POST /accounts/debit and POST /accounts/credit: the spec fields and nothing else.');

export type MovementRequest = z.infer<typeof movementRequest>;
export type VerifyRequest = z.infer<typeof verifyRequest>;

// ---- answers (as accepted) ----

export const verifyAnswer = z
  .looseObject({ verified: z.unknown().describe('Only `true` means verified.') })
  .describe('2xx with {"verified": true} means verified; any other 2xx body means OTP_INVALID.');

export const movementAnswer = z
  .looseObject({
    transaction_id: optionalId("The core's id of the booking; kept when present."),
    id: optionalId('Read as transaction_id when transaction_id is absent.'),
    booked_at: optionalText('When booked (ISO 8601); kept when it parses.'),
    booking_date: optionalText('Read as booked_at when booked_at is absent.'),
    date: optionalText('Read as booked_at when booked_at and booking_date are absent.'),
    reference: optionalId("Echo: when present it must equal the request's reference."),
    amount: z
      .union([z.number(), z.string()])
      .optional()
      .catch(undefined)
      .describe("Echo: when present it must equal the request's amount."),
    currency: optionalText("Echo: when present it must equal the request's currency (case-insensitive)."),
    iban: optionalText("Echo: when present it must equal the request's IBAN (spaces and case ignored)."),
    status: optionalText('Not read: any 2xx means booked.'),
  })
  .describe(
    'Any 2xx means booked, whatever the body (empty, not JSON, any fields). When the body echoes reference, amount, currency or iban ' +
      'and one differs from the request, the answer is for another movement: treated as an unknown outcome and replayed with the same reference.',
  );

export const accountAnswer = z
  .looseObject({
    iban: optionalText('Defaults to the IBAN asked for.'),
    balance: minorUnits.describe('Integer minor units (a JSON integer or an integer string).'),
    currency: currency.describe('ISO 4217 code of the account.'),
    holder_name: optionalText("Holder's name."),
    account_holder: optionalText('Read as holder_name when holder_name is absent.'),
    name: optionalText('Read as holder_name when holder_name and account_holder are absent.'),
    customer_ref: z
      .string()
      .nullish()
      .catch(undefined)
      .describe("The bank's customer reference, when the core says it."),
  })
  .describe('GET /accounts/{iban}: balance and currency are required; everything else is read when present.');

/** CREDIT or DEBIT in any case, spelled without the `i` flag so the JSON Schema pattern says the same. */
const directionWord = /^([Cc][Rr][Ee][Dd][Ii][Tt]|[Dd][Ee][Bb][Ii][Tt])$/;

export const statementItem = z
  .looseObject({
    transaction_id: optionalId("The core's id of the transaction."),
    id: optionalId('Read as transaction_id when transaction_id is absent.'),
    booking_date: optionalDate('YYYY-MM-DD (a longer ISO 8601 value is cut to its date).'),
    date: optionalDate('Read as booking_date when booking_date is absent.'),
    booked_at: optionalDate('Read as booking_date when booking_date and date are absent.'),
    amount: minorUnits.describe(
      'Integer minor units; signed (negative for a debit) when credit_debit_indicator is absent.',
    ),
    currency: currency.describe('ISO 4217 code.'),
    credit_debit_indicator: z
      .string()
      .regex(directionWord)
      .optional()
      .catch(undefined)
      .describe('CREDIT or DEBIT, any case; absent: the sign of amount tells.'),
    description: z.string().nullish().catch(undefined).describe('Statement text.'),
    reference: z.string().nullish().catch(undefined).describe("The movement's reference as the gateway sent it."),
    ref: z.string().nullish().catch(undefined).describe('Read as reference when reference is absent.'),
    end_to_end_id: z
      .string()
      .nullish()
      .catch(undefined)
      .describe('Read as reference when reference and ref are absent.'),
  })
  .refine(
    (item) => Boolean(item.booking_date ?? item.date ?? item.booked_at),
    'booking_date, date or booked_at (YYYY-MM-DD…) required',
  )
  .refine(
    (item) => item.credit_debit_indicator !== undefined || Number(item.amount) !== 0,
    'credit_debit_indicator required when the amount carries no sign',
  )
  .describe(
    'A transaction. Required: amount, currency and one of booking_date, date or booked_at; the direction comes from ' +
      'credit_debit_indicator or else the sign of amount (a zero amount needs the indicator). One unreadable item makes the whole statement unreadable.',
  );

export const statementAnswer = z
  .union([
    z.array(statementItem).describe('A bare array of transactions.'),
    z
      .looseObject({ iban: optionalText('Defaults to the IBAN asked for.'), transactions: z.array(statementItem) })
      .describe('Transactions under `transactions`.'),
  ])
  .describe('GET /accounts/{iban}/transactions: the transactions booked between fromDate and toDate (inclusive).');

export const errorAnswer = z
  .looseObject({
    error: z
      .union([
        z.string(),
        z.looseObject({ code: optionalText('The refusal code.'), message: optionalText('Human-readable text.') }),
      ])
      .optional()
      .catch(undefined)
      .describe('Either the code itself, or {code, message}.'),
    code: optionalText('The refusal code, when error.code is absent.'),
    message: optionalText('Human-readable text.'),
    error_description: optionalText('Human-readable text, when message is absent.'),
  })
  .describe("A refusal's body: the code is read from error.code, code, or error when it is a string.");

// ---- codes the client reads in refusals ----

/** Codes meaning "this reference was booked by an earlier call": the movement is booked. */
export const DUPLICATE_CODES: ReadonlySet<string> = new Set(['DUPLICATE_REFERENCE', 'DUPLICATE', 'ALREADY_PROCESSED']);
/** Codes a core uses to say the gateway's internal key, not the customer, was refused. */
export const KEY_REFUSED_CODES: ReadonlySet<string> = new Set([
  'INVALID_INTERNAL_KEY',
  'UNAUTHORIZED',
  'INVALID_KEY',
  'FORBIDDEN',
]);
export const INSUFFICIENT_FUNDS_CODE = 'INSUFFICIENT_FUNDS';
