import {
  assertAmount,
  assertCurrency,
  createLogger,
  formatMoney,
  GatewayError,
  inSpan,
  invalid,
  isProduction,
  newId,
  requireIban,
  type ErrorCode,
} from '@gateway/kernel';
import { Registry } from 'prom-client';
import { sharedBankCoreAgent } from './agent';
import { readAccount, readMovement, readStatement, type Readout } from './answers';
import { assertCoreBaseUrl, normalizeBaseUrl } from './base-url';
import { BankCoreError, metricOutcomeOf, type FailureReason } from './errors';
import { bankCoreMetrics } from './metrics';
import {
  DUPLICATE_CODES,
  INSUFFICIENT_FUNDS_CODE,
  KEY_REFUSED_CODES,
  type MovementRequest,
  type VerifyRequest,
} from './schemas';
import { errorCodeOf, errorMessageOf, Transport, type CallSpec, type CoreAnswer, type RetryPolicy } from './transport';
import type { BankCoreClient, BankCoreClientOptions, CoreMovement, DebitInput } from './types';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 };

/** The gateway's own claim refusals, relayed by the bank on alias enrollment: meaningful to the caller. */
const ENROLL_PASS_THROUGH = new Set<ErrorCode>([
  'HANDLE_TAKEN',
  'HANDLE_INVALID',
  'VALIDATION_ERROR',
  'ACCOUNT_NOT_FOUND',
]);

/** The one client every subgraph uses to call a bank core (spec "Bank core callbacks"). */
export function createBankCoreClient(options: BankCoreClientOptions): BankCoreClient {
  const production = options.production ?? isProduction();
  const problem = assertCoreBaseUrl(options.baseUrl, production);
  if (problem) {
    const detail = `core_base_url of bank ${options.bankHandle}: ${problem}`;
    throw new GatewayError('VALIDATION_ERROR', detail, detail);
  }
  if (!options.bankHandle) throw invalid('bankHandle', 'required');
  if (!options.internalKey) throw invalid('internalKey', 'required');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retry = options.retry ?? DEFAULT_RETRY;
  if (!(timeoutMs > 0)) throw invalid('timeoutMs', 'must be positive');
  if (!(
    Number.isInteger(retry.attempts) &&
    retry.attempts >= 1 &&
    retry.baseDelayMs >= 0 &&
    retry.maxDelayMs >= retry.baseDelayMs
  )) {
    throw invalid('retry', 'attempts >= 1 and 0 <= baseDelayMs <= maxDelayMs');
  }

  const bank = options.bankHandle;
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const logger = options.logger ?? createLogger('bank-core-client');
  const metrics = bankCoreMetrics(options.metrics ?? new Registry());
  const transport = new Transport({
    bankHandle: bank,
    baseUrl,
    internalKey: options.internalKey,
    timeoutMs,
    retry,
    totalBudgetMs: options.totalBudgetMs ?? Math.round(timeoutMs * 2.5),
    dispatcher: options.dispatcher ?? sharedBankCoreAgent(options.egress),
    metrics,
    logger,
    ...(options.egress ? { egress: options.egress } : {}),
  });

  /** One logical call (one span when tracing, its attempts' HTTP spans inside): transport, interpretation, one metric sample and one log line. */
  function invoke<T>(
    spec: Omit<CallSpec, 'requestId'> & { requestId?: string | undefined },
    interpret: (answer: CoreAnswer) => T,
  ): Promise<T> {
    const requestId = spec.requestId ?? newId('request');
    const attributes = {
      'gateway.bank': bank,
      'gateway.bank_core.operation': spec.operation,
      'gateway.request_id': requestId,
    };
    return inSpan(`bank-core ${spec.operation}`, attributes, () => call(spec, requestId, interpret));
  }

  async function call<T>(
    spec: Omit<CallSpec, 'requestId'>,
    requestId: string,
    interpret: (answer: CoreAnswer) => T,
  ): Promise<T> {
    const started = performance.now();
    let outcome = 'ok';
    let attempts = 0;
    let status: number | undefined;
    try {
      const answer = await transport.send({ ...spec, requestId });
      attempts = answer.attempts;
      status = answer.status;
      return interpret(answer);
    } catch (error) {
      outcome = metricOutcomeOf(error);
      if (error instanceof BankCoreError) {
        attempts = error.attempts;
        status = error.coreStatus;
      }
      throw error;
    } finally {
      const durationMs = performance.now() - started;
      metrics.duration.observe({ bank, operation: spec.operation, outcome }, durationMs / 1000);
      const line = {
        bank,
        operation: spec.operation,
        request_id: requestId,
        attempts,
        outcome,
        status,
        duration_ms: Math.round(durationMs),
      };
      if (outcome === 'ok') logger.info(line, 'bank core call');
      else logger.warn(line, 'bank core call failed');
    }
  }

  const fail = (
    code: ErrorCode,
    reason: FailureReason,
    operation: string,
    answer: CoreAnswer,
    detail: string,
  ): BankCoreError => {
    const coreCode = errorCodeOf(answer.body);
    return new BankCoreError(code, detail, {
      bankHandle: bank,
      operation,
      reason,
      attempts: answer.attempts,
      coreStatus: answer.status,
      ...(coreCode ? { coreCode } : {}),
    });
  };

  /** An answer with no specific meaning: a 4xx is CBS_ERROR 'client_error', an odd 2xx/3xx 'bad_answer'. */
  const unexpected = (operation: string, answer: CoreAnswer, reason?: FailureReason): BankCoreError => {
    const coreCode = errorCodeOf(answer.body);
    const message = errorMessageOf(answer.body);
    const said = `HTTP ${answer.status}${coreCode ? ` ${coreCode}` : ''}${message ? `: ${message}` : ''}`;
    const why = reason ?? (answer.status >= 400 ? 'client_error' : 'bad_answer');
    const verb =
      why === 'client_error'
        ? 'refused'
        : why === 'replay_refused'
          ? 'refused a replay of'
          : 'gave an unusable answer to';
    return fail('CBS_ERROR', why, operation, answer, `bank core ${bank} ${verb} ${operation}: ${said}`);
  };

  const accept = <T>(operation: string, answer: CoreAnswer, readout: Readout<T>): T => {
    if (readout.ok) return readout.value;
    throw fail(
      'CBS_ERROR',
      'bad_answer',
      operation,
      answer,
      `bank core ${bank} gave an unreadable ${operation} answer: ${readout.problem}`,
    );
  };

  /**
   * Debit and credit (API-CONTRACT "Bank core interface"): any 2xx is booked unless it echoes
   * another movement; a duplicate-reference refusal is booked; INSUFFICIENT_FUNDS (or a 422 on a
   * debit with no code) is refused for funds; any other 4xx is a final refusal on a first attempt,
   * but proves nothing after an attempt that may have reached the core; a 3xx is unknown.
   */
  const movement = async (operation: 'debit' | 'credit', input: DebitInput): Promise<CoreMovement> => {
    const iban = requireIban(input.iban).iban;
    assertAmount(input.amount);
    assertCurrency(input.currency);
    requireText(input.reference, 'reference', 128);
    if (typeof input.description !== 'string') throw invalid('description', 'must be a string');
    const body: MovementRequest = {
      iban,
      amount: input.amount,
      currency: input.currency,
      reference: input.reference,
      description: input.description,
    };
    return invoke(
      {
        operation,
        method: 'POST',
        path: `/accounts/${operation}`,
        body,
        requestId: input.requestId,
        retryOn: 'transient',
      },
      (answer) => {
        if (answer.status >= 200 && answer.status < 300) {
          const booked = readMovement(answer.body, body);
          if (booked.ok) return booked.value;
          // A core answering for another movement is a defect there, never a success here.
          throw fail(
            'CBS_ERROR',
            'bad_answer',
            operation,
            answer,
            `bank core ${bank} answered ${operation} ${input.reference}: ${booked.problem}`,
          );
        }
        if (answer.status < 400) throw unexpected(operation, answer, 'bad_answer');
        const code = errorCodeOf(answer.body)?.toUpperCase();
        if (code && DUPLICATE_CODES.has(code)) return { transactionId: null, bookedAt: null, duplicate: true };
        if (answer.ambiguousBefore) throw unexpected(operation, answer, 'replay_refused');
        if (code === INSUFFICIENT_FUNDS_CODE || (operation === 'debit' && answer.status === 422 && !code)) {
          throw fail(
            'INSUFFICIENT_FUNDS',
            'rejected',
            operation,
            answer,
            `bank ${bank}: balance too low for ${formatMoney(input.amount, input.currency)}`,
          );
        }
        throw unexpected(operation, answer, 'client_error');
      },
    );
  };

  return {
    bankHandle: bank,
    baseUrl,

    async verifyCustomer(input) {
      requireText(input.customerRef, 'customerRef', 128);
      requireText(input.otp, 'otp', 64);
      const body: VerifyRequest = { customer_ref: input.customerRef, otp: input.otp };
      return invoke(
        {
          operation: 'verifyCustomer',
          method: 'POST',
          path: '/customers/verify',
          body,
          requestId: input.requestId,
          retryOn: 'transient',
        },
        (answer) => {
          const refused = () =>
            fail('OTP_INVALID', 'rejected', 'verifyCustomer', answer, `bank ${bank} refused the customer's OTP`);
          if (answer.status === 401 || answer.status === 403) {
            // A refused key must never reach the customer as "wrong OTP".
            if (KEY_REFUSED_CODES.has(errorCodeOf(answer.body)?.toUpperCase() ?? '')) {
              throw fail(
                'CBS_ERROR',
                'client_error',
                'verifyCustomer',
                answer,
                `bank core ${bank} refused the gateway's internal key`,
              );
            }
            if (answer.status === 401) throw refused();
          }
          if (answer.status < 200 || answer.status >= 300) throw unexpected('verifyCustomer', answer);
          if ((answer.body as { verified?: unknown } | null)?.verified === true) return { verified: true as const };
          throw refused();
        },
      );
    },

    debit: (input) => movement('debit', input),
    credit: (input) => movement('credit', input),

    async getAccount(rawIban, callOptions = {}) {
      const iban = requireIban(rawIban).iban;
      return invoke(
        {
          operation: 'getAccount',
          method: 'GET',
          path: `/accounts/${encodeURIComponent(iban)}`,
          requestId: callOptions.requestId,
          retryOn: 'transient',
        },
        (answer) => {
          if (answer.status >= 300) throw unexpected('getAccount', answer);
          return accept('getAccount', answer, readAccount(iban, answer.body));
        },
      );
    },

    async listTransactions(rawIban, fromDate, toDate, callOptions = {}) {
      const iban = requireIban(rawIban).iban;
      requireDate(fromDate, 'fromDate');
      requireDate(toDate, 'toDate');
      if (fromDate > toDate) throw invalid('fromDate', 'is after toDate');
      const query = new URLSearchParams({ fromDate, toDate });
      return invoke(
        {
          operation: 'listTransactions',
          method: 'GET',
          path: `/accounts/${encodeURIComponent(iban)}/transactions?${query}`,
          requestId: callOptions.requestId,
          retryOn: 'transient',
        },
        (answer) => {
          if (answer.status >= 300) throw unexpected('listTransactions', answer);
          return accept('listTransactions', answer, readStatement(iban, answer.body));
        },
      );
    },

    async enrollAlias(input) {
      requireText(input.alias, 'alias', 64);
      requireText(input.customerRef, 'customerRef', 128);
      const iban = requireIban(input.accountIban, 'accountIban').iban;
      return invoke(
        {
          operation: 'enrollAlias',
          method: 'POST',
          path: '/service/callbacks/v1/alias/enroll',
          body: { alias: input.alias, account_iban: iban, customer_ref: input.customerRef },
          requestId: input.requestId,
          // The bank's claim at the gateway is not deduplicated by a reference: only retry what never left.
          retryOn: 'unsent',
        },
        (answer) => {
          const code = errorCodeOf(answer.body);
          if (answer.status >= 400 && code && ENROLL_PASS_THROUGH.has(code as ErrorCode)) {
            throw fail(code as ErrorCode, 'rejected', 'enrollAlias', answer, errorMessageOf(answer.body) ?? code);
          }
          if (answer.status >= 300) throw unexpected('enrollAlias', answer);
          const alias = answer.body;
          if (!alias || typeof alias !== 'object') return { status: answer.status, alias: {} };
          return { status: answer.status, alias: alias as Record<string, unknown> };
        },
      );
    },
  };
}

function requireText(value: unknown, field: string, max: number): void {
  if (typeof value !== 'string' || !value.trim()) throw invalid(field, 'required');
  if (value.length > max) throw invalid(field, `at most ${max} characters`);
}

function requireDate(value: unknown, field: string): void {
  const parsed =
    typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00.000Z`) : null;
  const ok = parsed !== null && !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value as string);
  if (!ok) throw invalid(field, 'must be a date YYYY-MM-DD');
}
