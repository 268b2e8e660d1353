import { z } from '@gateway/kernel';
import { DEFAULT_TIMEOUT_MS } from './client';
import {
  accountAnswer,
  DUPLICATE_CODES,
  errorAnswer,
  INSUFFICIENT_FUNDS_CODE,
  KEY_REFUSED_CODES,
  movementAnswer,
  movementRequest,
  statementAnswer,
  verifyAnswer,
  verifyRequest,
} from './schemas';

type Json = Record<string, any>;

/** JSON Schema 2020-12 is OpenAPI 3.1's dialect; the per-schema $schema key is left to the document. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const list = (codes: Iterable<string>) => [...codes].join(', ');

/** The meaning the gateway gives each answer to a debit or credit. */
const MOVEMENT_RESPONSES: Json = {
  '2XX': {
    description:
      'Booked, whatever the body (empty, not JSON, any fields); transaction_id (or id) and booked_at are kept when present. An echo that differs from the request makes it an unknown outcome instead.',
    content: json('MovementAnswer'),
  },
  '3XX': { description: 'Unknown outcome: never booked nor refused; the gateway replays the same reference later.' },
  '409': {
    description: `Refused with a duplicate-reference code (${list(DUPLICATE_CODES)}): the reference was booked by an earlier call; counted as booked.`,
    content: json('CoreError'),
  },
  '422': {
    description: `${INSUFFICIENT_FUNDS_CODE} (or, on a debit, a 422 with no readable code): the balance is too low; refused, not retried.`,
    content: json('CoreError'),
  },
  '4XX': {
    description:
      `A refusal. The code is read from error.code, code, or error when it is a string. ${list(DUPLICATE_CODES)}: booked. ` +
      `${INSUFFICIENT_FUNDS_CODE}: funds too low. Any other code on a first attempt: refused for good (CBS_ERROR). ` +
      'After an earlier attempt of the same call timed out, broke or answered 5xx, a refusal other than a duplicate proves nothing: ' +
      "the outcome is unknown and the gateway reconciles against the account's statement (the reference among its transactions).",
    content: json('CoreError'),
  },
  '5XX': {
    description: 'Unknown outcome: retried with the same reference (exponential backoff); the core must book it once.',
  },
};

const internalKey = [{ internalKey: [] }];
const requestId = { $ref: '#/components/parameters/XRequestId' };
const ibanParam = {
  name: 'iban',
  in: 'path',
  required: true,
  description: 'Electronic format (no spaces, upper case).',
  schema: { type: 'string' },
};

/**
 * The bank core interface as the gateway uses it (API-CONTRACT "Bank core interface"), generated
 * from the zod schemas the client sends and reads answers with. Served as /openapi/bank-core.json.
 */
export function bankCoreOpenApiDocument(): Json {
  const seconds = DEFAULT_TIMEOUT_MS / 1000;
  const movement = (which: 'debit' | 'credit') => ({
    operationId: which === 'debit' ? 'debitAccount' : 'creditAccount',
    summary:
      which === 'debit' ? "Debit the payer's account" : "Credit the payee's account (also reversals and settlement)",
    description: `Deduplicated by reference: the same request may arrive again (timeouts, 5xx) and must be booked once. Answer within ${seconds} s.`,
    security: internalKey,
    parameters: [requestId],
    requestBody: { required: true, content: json('MovementRequest') },
    responses: MOVEMENT_RESPONSES,
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Bank core interface (called by the payment gateway)',
      version: '1.0.0',
      description:
        "What the gateway sends to a bank's core_base_url and which answers it accepts. The gateway sends exactly the spec's fields " +
        'and accepts any answer a reasonable core gives. Every call carries X-Service-Internal-Key (the key issued at registration; ' +
        `refuse a call without it) and X-Request-Id. A core must answer within ${seconds} s: a call without an answer in time is retried ` +
        'with the same reference, and a debit or credit whose outcome is unknown is never counted as booked nor refused until a ' +
        'replay or the statement decides it.',
    },
    paths: {
      '/customers/verify': {
        post: {
          operationId: 'verifyCustomer',
          summary: "Verify the customer's one-time password",
          security: internalKey,
          parameters: [requestId],
          requestBody: { required: true, content: json('VerifyRequest') },
          responses: {
            '2XX': {
              description: '{"verified": true}: verified. Any other 2xx body: OTP_INVALID.',
              content: json('VerifyAnswer'),
            },
            '401': {
              description: `OTP_INVALID, unless the code is a key refusal (${list(KEY_REFUSED_CODES)}): then the gateway's key was refused (CBS_ERROR), never shown to the customer as a wrong OTP.`,
              content: json('CoreError'),
            },
            '403': {
              description: `A key refusal (${list(KEY_REFUSED_CODES)}) or another refusal: CBS_ERROR.`,
              content: json('CoreError'),
            },
            '5XX': { description: 'Retried; CBS_ERROR when every attempt fails.' },
          },
        },
      },
      '/accounts/debit': { post: movement('debit') },
      '/accounts/credit': { post: movement('credit') },
      '/accounts/{iban}': {
        get: {
          operationId: 'getAccount',
          summary: 'Account holder, balance and currency',
          security: internalKey,
          parameters: [ibanParam, requestId],
          responses: {
            '200': { description: 'The account.', content: json('AccountAnswer') },
            '4XX': {
              description: 'Refused (e.g. ACCOUNT_NOT_FOUND): CBS_ERROR carrying the code.',
              content: json('CoreError'),
            },
            '5XX': { description: 'Retried; CBS_ERROR when every attempt fails.' },
          },
        },
      },
      '/accounts/{iban}/transactions': {
        get: {
          operationId: 'listTransactions',
          summary:
            "The account's transactions between two dates (inclusive); the gateway reconciles references against it",
          security: internalKey,
          parameters: [
            ibanParam,
            {
              name: 'fromDate',
              in: 'query',
              required: true,
              description: 'YYYY-MM-DD, inclusive.',
              schema: { type: 'string', format: 'date' },
            },
            {
              name: 'toDate',
              in: 'query',
              required: true,
              description: 'YYYY-MM-DD, inclusive.',
              schema: { type: 'string', format: 'date' },
            },
            requestId,
          ],
          responses: {
            '200': {
              description: 'The transactions: a bare array, or under `transactions`.',
              content: json('StatementAnswer'),
            },
            '4XX': { description: 'Refused: CBS_ERROR carrying the code.', content: json('CoreError') },
            '5XX': { description: 'Retried; CBS_ERROR when every attempt fails.' },
          },
        },
      },
    },
    components: {
      schemas: {
        VerifyRequest: jsonSchema(verifyRequest, 'output'),
        MovementRequest: jsonSchema(movementRequest, 'output'),
        VerifyAnswer: jsonSchema(verifyAnswer, 'input'),
        MovementAnswer: jsonSchema(movementAnswer, 'input'),
        AccountAnswer: jsonSchema(accountAnswer, 'input'),
        StatementAnswer: jsonSchema(statementAnswer, 'input'),
        CoreError: jsonSchema(errorAnswer, 'input'),
      },
      parameters: {
        XRequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: true,
          description:
            'The gateway request that caused this call (req_…); the same on every retry of one call. Log it.',
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        internalKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Internal-Key',
          description: 'The internal key issued when the bank registered; validate it on every call.',
        },
      },
    },
    'x-answer-within-seconds': seconds,
    'x-error-codes': {
      booked: [...DUPLICATE_CODES],
      insufficientFunds: [INSUFFICIENT_FUNDS_CODE],
      keyRefused: [...KEY_REFUSED_CODES],
      meaning: {
        booked: 'Any 2xx to a debit or credit, or a 4xx with a duplicate-reference code.',
        refused: 'A 4xx on a first attempt (INSUFFICIENT_FUNDS: funds too low; any other code: CBS_ERROR).',
        unknownAndReplayed:
          'A timeout, a 5xx, a 3xx, a 2xx echoing another movement, or a 4xx after an earlier attempt may have reached the core.',
      },
    },
  };
}
