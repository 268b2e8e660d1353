import type { FastifyInstance } from 'fastify';
import { bankErrors } from '../errors';
import type { Operation } from '../ledger/entities';
import type { SandboxContext } from './context';
import { creditBody, debitBody, parse, transactionsQuery, verifyBody } from './schemas';
import { accountBody, movementAnswer, statementLine } from './views';

/** The spec's "Bank core callbacks": what the gateway calls on {core_base_url}. */
export function registerCoreRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.post('/customers/verify', (request) =>
    ctx.faults.run('verify', async () => {
      const body = parse(verifyBody, request.body);
      if (!(await ctx.accounts.verifyOtp(body.customer_ref, body.otp))) throw bankErrors.otpInvalid();
      return { verified: true };
    }),
  );

  const movement = (operation: Operation) => async (request: { body: unknown; id: string }) => {
    const body = parse(operation === 'DEBIT' ? debitBody : creditBody, request.body);
    const result = await ctx.movements.book(operation, {
      iban: body.iban,
      amount: body.amount,
      currency: body.currency,
      reference: body.reference,
      description: body.description,
    });
    if (result.railCredit) ctx.confirmations.schedule(result.transaction);
    ctx.logger.info(
      {
        req_id: request.id,
        operation,
        reference: body.reference,
        transaction_id: result.transaction.transactionId,
        replayed: result.replayed,
      },
      result.replayed ? 'movement replayed' : 'movement booked',
    );
    return movementAnswer(result.transaction);
  };
  app.post('/accounts/debit', (request) => ctx.faults.run('debit', () => movement('DEBIT')(request)));
  app.post('/accounts/credit', (request) => ctx.faults.run('credit', () => movement('CREDIT')(request)));

  app.get<{ Params: { iban: string } }>('/accounts/:iban', (request) =>
    ctx.faults.run('getAccount', async () => {
      const account = await ctx.accounts.getAccount(request.params.iban);
      if (!account) throw bankErrors.accountNotFound(request.params.iban);
      return accountBody(account);
    }),
  );

  app.get<{ Params: { iban: string } }>('/accounts/:iban/transactions', (request) =>
    ctx.faults.run('listTransactions', async () => {
      const query = parse(transactionsQuery, request.query);
      const transactions = await ctx.movements.statement(request.params.iban, query.fromDate, query.toDate);
      return {
        iban: request.params.iban.replace(/\s+/g, '').toUpperCase(),
        transactions: transactions.map(statementLine),
      };
    }),
  );
}
