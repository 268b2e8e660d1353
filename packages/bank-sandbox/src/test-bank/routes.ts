import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseIban, safeEqual, type Logger } from '@gateway/kernel';
import { BankError, bankErrors } from '../errors';
import { HungRequestReleased } from '../faults';
import { creditBody, debitBody, parse, transactionsQuery, verifyBody } from '../http/schemas';
import { accountBody, movementAnswer, statementLine } from '../http/views';
import type { TestBankConfirmations } from './confirmations';
import type { HandleBooks, TestLedger } from './ledger';
import { TEST_OTP, testPayerByCustomerRef, testPayerByIban } from './payers';

export interface TestBankRoutesContext {
  ledger: TestLedger;
  /** Whether core() registered this handle in this process. */
  registered(handle: string): boolean;
  /** Null when the test banks were started without `confirm`: rail credits are then never confirmed. */
  confirmations: TestBankConfirmations | null;
  /** Aborted by stop(): releases the requests the timeout payer holds. */
  stopping: AbortSignal;
  logger: Logger;
}

type HandleParams = { Params: { handle: string } };
type AccountParams = { Params: { handle: string; iban: string } };

/** Currency of an account opened by a read (GET account, statement), which names none. */
const READ_CURRENCY = 'LYD';

/**
 * The spec's bank core interface for every handle, under /banks/{handle}: the sandbox's request
 * and answer shapes and ledger, made permissive (accounts open on first use, OTP 123456) and
 * with the test payers' documented behaviours (payers.ts).
 */
export function registerTestBankRoutes(app: FastifyInstance, ctx: TestBankRoutesContext): void {
  const booksOf = (handle: string): HandleBooks => {
    if (!ctx.registered(handle))
      throw new BankError(404, 'NOT_FOUND', `no test bank ${handle} here (core() registers a handle)`);
    return ctx.ledger.of(handle);
  };

  app.post<HandleParams>('/banks/:handle/customers/verify', async (request) => {
    booksOf(request.params.handle);
    const body = parse(verifyBody, request.body);
    const payer = testPayerByCustomerRef(body.customer_ref);
    // A test payer has its own rule (wrong-otp refuses all); any other customer, a real one's
    // included (their aliases resolve in test mode), is nobody the test bank knows: TEST_OTP.
    const expected = payer ? payer.otp : TEST_OTP;
    if (expected === null || !safeEqual(body.otp, expected)) throw bankErrors.otpInvalid();
    return { verified: true };
  });

  app.post<HandleParams>('/banks/:handle/accounts/debit', async (request, reply) => {
    const { handle } = request.params;
    const books = booksOf(handle);
    const body = parse(debitBody, request.body);
    const payer = testPayerByIban(body.iban);
    if (payer?.behaviour === 'insufficient') {
      // Always refused, even once credits have raised its balance: the outcome must not depend on history.
      await ctx.ledger.openIfAbsent(handle, body.iban, body.currency);
      throw bankErrors.insufficientFunds();
    }
    const result = await ctx.ledger.withAccount(handle, body.iban, body.currency, () =>
      books.movements.book('DEBIT', body),
    );
    log(ctx.logger, request.id, handle, 'DEBIT', body.reference, result);
    // As the sandbox's `hang` fault with afterBooking: booked, answer lost; a replay hears it.
    if (payer?.behaviour === 'timeout' && !result.replayed) await holdUntilCallerGivesUp(reply, ctx.stopping);
    // Booked, but no debit of this reference is ever answered: only the statement tells.
    if (payer?.behaviour === 'unknown')
      throw new BankError(
        500,
        'INTERNAL_ERROR',
        'test payer unknown: the debit is booked but never answered (see the statement)',
      );
    return movementAnswer(result.transaction);
  });

  app.post<HandleParams>('/banks/:handle/accounts/credit', async (request) => {
    const { handle } = request.params;
    const books = booksOf(handle);
    const body = parse(creditBody, request.body);
    // The payer's side of this payment, at whichever handle it was debited.
    const debitedIbans = await ctx.ledger.debitedIbans(body.reference);
    const iban = parseIban(body.iban)?.iban ?? body.iban;
    // A credit-refused payer's payment is refused by the payee bank (a non-funds 4xx), so the gateway
    // reverses the debit; a credit back to the payer itself is never refused.
    if (debitedIbans.some((debited) => debited !== iban && testPayerByIban(debited)?.behaviour === 'credit-refused')) {
      throw new BankError(
        422,
        'ACCOUNT_CLOSED',
        `test payer credit-refused: the payee account ${iban} refuses this credit`,
      );
    }
    const result = await ctx.ledger.withAccount(handle, body.iban, body.currency, () =>
      books.movements.book('CREDIT', body),
    );
    log(ctx.logger, request.id, handle, 'CREDIT', body.reference, result);
    // The sandbox's rule: a movement id's credit this handle never debited is a rail credit.
    if (result.railCredit) ctx.confirmations?.schedule(handle, result.transaction, debitedIbans);
    return movementAnswer(result.transaction);
  });

  app.get<AccountParams>('/banks/:handle/accounts/:iban', async (request) => {
    const { handle, iban } = request.params;
    const books = booksOf(handle);
    const account = await ctx.ledger.withAccount(handle, iban, READ_CURRENCY, async () => {
      const found = await books.accounts.getAccount(iban);
      if (!found) throw bankErrors.accountNotFound(iban);
      return found;
    });
    return accountBody(account);
  });

  app.get<AccountParams>('/banks/:handle/accounts/:iban/transactions', async (request) => {
    const { handle, iban } = request.params;
    const books = booksOf(handle);
    const query = parse(transactionsQuery, request.query);
    const transactions = await ctx.ledger.withAccount(handle, iban, READ_CURRENCY, () =>
      books.movements.statement(iban, query.fromDate, query.toDate),
    );
    return { iban: iban.replace(/\s+/g, '').toUpperCase(), transactions: transactions.map(statementLine) };
  });
}

function log(
  logger: Logger,
  reqId: string,
  handle: string,
  operation: string,
  reference: string,
  result: { transaction: { transactionId: string }; replayed: boolean },
): void {
  logger.info(
    {
      req_id: reqId,
      bank_handle: handle,
      operation,
      reference,
      transaction_id: result.transaction.transactionId,
      replayed: result.replayed,
    },
    result.replayed ? 'test bank movement replayed' : 'test bank movement booked',
  );
}

/** Never answers: waits until the caller closes the connection (its timeout) or the test banks stop, then drops it. */
async function holdUntilCallerGivesUp(reply: FastifyReply, stopping: AbortSignal): Promise<never> {
  await new Promise<void>((resolve) => {
    const release = () => {
      stopping.removeEventListener('abort', release);
      reply.raw.off('close', release);
      resolve();
    };
    if (stopping.aborted || reply.raw.socket?.destroyed !== false) return release();
    stopping.addEventListener('abort', release);
    reply.raw.once('close', release);
  });
  throw new HungRequestReleased();
}
