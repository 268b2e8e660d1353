import { assertAmount, assertCurrency, createLogger, GatewayError, invalid, isProduction, newId, requireIban, type ErrorCode } from '@gateway/kernel';
import { Registry } from 'prom-client';
import { sharedBankCoreAgent } from './agent';
import { readAccount, readMovement, readStatement, type Readout } from './answers';
import { assertCoreBaseUrl, normalizeBaseUrl } from './base-url';
import { BankCoreError, outcomeOf, type FailureReason } from './errors';
import { bankCoreMetrics } from './metrics';
import { errorCodeOf, errorMessageOf, Transport, type CallSpec, type CoreAnswer, type RetryPolicy } from './transport';
import type { BankCoreClient, BankCoreClientOptions, CoreMovement, CreditInput, DebitInput } from './types';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 };

/** error.code values a core uses to say the internal key, not the customer, was refused. */
const KEY_REFUSED = new Set(['INVALID_INTERNAL_KEY', 'UNAUTHORIZED', 'INVALID_KEY']);
/** The gateway's own claim refusals, relayed by the bank on alias enrollment: meaningful to the caller. */
const ENROLL_PASS_THROUGH = new Set<ErrorCode>(['HANDLE_TAKEN', 'HANDLE_INVALID', 'VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND']);

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
  if (!(Number.isInteger(retry.attempts) && retry.attempts >= 1 && retry.baseDelayMs >= 0 && retry.maxDelayMs >= retry.baseDelayMs)) {
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
    dispatcher: options.dispatcher ?? sharedBankCoreAgent(),
    metrics,
    logger,
  });

  /** One logical call: transport, interpretation, one metric sample and one log line. */
  async function invoke<T>(spec: Omit<CallSpec, 'requestId'> & { requestId?: string | undefined }, interpret: (answer: CoreAnswer) => T): Promise<T> {
    const requestId = spec.requestId ?? newId('request');
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
      outcome = outcomeOf(error);
      if (error instanceof BankCoreError) {
        attempts = error.attempts;
        status = error.coreStatus;
      }
      throw error;
    } finally {
      const durationMs = performance.now() - started;
      metrics.duration.observe({ bank, operation: spec.operation, outcome }, durationMs / 1000);
      const line = { bank, operation: spec.operation, request_id: requestId, attempts, outcome, status, duration_ms: Math.round(durationMs) };
      if (outcome === 'ok') logger.info(line, 'bank core call');
      else logger.warn(line, 'bank core call failed');
    }
  }

  const fail = (code: ErrorCode, reason: FailureReason, operation: string, answer: CoreAnswer, detail: string): BankCoreError => {
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

  /** An answer with no specific meaning: a 4xx (or odd 2xx/3xx) becomes CBS_ERROR saying what the core said. */
  const unexpected = (operation: string, answer: CoreAnswer): BankCoreError => {
    const coreCode = errorCodeOf(answer.body);
    const message = errorMessageOf(answer.body);
    const said = `HTTP ${answer.status}${coreCode ? ` ${coreCode}` : ''}${message ? `: ${message}` : ''}`;
    return fail('CBS_ERROR', answer.status >= 400 ? 'client_error' : 'bad_answer', operation, answer, `bank core ${bank} refused ${operation}: ${said}`);
  };

  const accept = <T>(operation: string, answer: CoreAnswer, readout: Readout<T>): T => {
    if (readout.ok) return readout.value;
    throw fail('CBS_ERROR', 'bad_answer', operation, answer, `bank core ${bank} gave an unreadable ${operation} answer: ${readout.problem}`);
  };

  const movement = async (operation: 'debit' | 'credit', input: DebitInput | CreditInput, body: Record<string, unknown>): Promise<CoreMovement> => {
    const iban = requireIban(input.iban).iban;
    assertAmount(input.amount);
    assertCurrency(input.currency);
    requireText(input.reference, 'reference', 128);
    if (typeof input.description !== 'string') throw invalid('description', 'must be a string');
    return invoke(
      { operation, method: 'POST', path: `/accounts/${operation}`, body: { ...body, iban }, requestId: input.requestId, retryOn: 'transient' },
      (answer) => {
        if (answer.status === 422 && errorCodeOf(answer.body) === 'INSUFFICIENT_FUNDS') {
          throw fail('INSUFFICIENT_FUNDS', 'rejected', operation, answer, `bank ${bank}: balance too low for ${input.amount} ${input.currency}`);
        }
        if (answer.status >= 300) throw unexpected(operation, answer);
        const booked = accept(operation, answer, readMovement(answer.body));
        // A core answering for another movement is a defect there, never a success here.
        if (booked.reference !== input.reference || booked.amount !== input.amount || booked.currency !== input.currency || booked.iban.replace(/\s+/g, '').toUpperCase() !== iban) {
          throw fail('CBS_ERROR', 'bad_answer', operation, answer, `bank core ${bank} answered ${operation} ${input.reference} with another movement`);
        }
        return booked;
      },
    );
  };

  return {
    bankHandle: bank,
    baseUrl,

    async verifyCustomer(input) {
      requireText(input.customerRef, 'customerRef', 128);
      requireText(input.otp, 'otp', 64);
      return invoke(
        {
          operation: 'verifyCustomer',
          method: 'POST',
          path: '/customers/verify',
          body: { customer_ref: input.customerRef, otp: input.otp },
          requestId: input.requestId,
          retryOn: 'transient',
        },
        (answer) => {
          if (answer.status === 401 || answer.status === 403) {
            if (KEY_REFUSED.has(errorCodeOf(answer.body) ?? '')) {
              throw fail('CBS_ERROR', 'client_error', 'verifyCustomer', answer, `bank core ${bank} refused the gateway's internal key`);
            }
            throw fail('OTP_INVALID', 'rejected', 'verifyCustomer', answer, `bank ${bank} refused the customer's OTP`);
          }
          if (answer.status >= 300) throw unexpected('verifyCustomer', answer);
          const verified = (answer.body as { verified?: unknown } | null)?.verified;
          if (verified === true) return { verified: true as const };
          if (verified === false) throw fail('OTP_INVALID', 'rejected', 'verifyCustomer', answer, `bank ${bank} refused the customer's OTP`);
          throw fail('CBS_ERROR', 'bad_answer', 'verifyCustomer', answer, `bank core ${bank} gave an unreadable verify answer`);
        },
      );
    },

    async debit(input) {
      return movement('debit', input, {
        amount: input.amount,
        currency: input.currency,
        reference: input.reference,
        description: input.description,
      });
    },

    async credit(input) {
      if (input.debtorBank !== undefined) requireText(input.debtorBank, 'debtorBank', 64);
      if (input.sessionId !== undefined) requireText(input.sessionId, 'sessionId', 128);
      return movement('credit', input, {
        amount: input.amount,
        currency: input.currency,
        reference: input.reference,
        description: input.description,
        ...(input.debtorBank !== undefined ? { debtor_bank: input.debtorBank } : {}),
        ...(input.sessionId !== undefined ? { session_id: input.sessionId } : {}),
      });
    },

    async getAccount(rawIban, callOptions = {}) {
      const iban = requireIban(rawIban).iban;
      return invoke(
        { operation: 'getAccount', method: 'GET', path: `/accounts/${encodeURIComponent(iban)}`, requestId: callOptions.requestId, retryOn: 'transient' },
        (answer) => {
          if (answer.status >= 300) throw unexpected('getAccount', answer);
          return accept('getAccount', answer, readAccount(answer.body));
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
  const parsed = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00.000Z`) : null;
  const ok = parsed !== null && !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value as string);
  if (!ok) throw invalid(field, 'must be a date YYYY-MM-DD');
}
