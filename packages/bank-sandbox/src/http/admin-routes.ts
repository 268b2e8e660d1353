import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from './context';
import type { CoreOperation } from '../faults';
import { faultsBody, gatewayBody, openAccountBody, parse, setOtpBody } from './schemas';
import { accountBody, ledgerLine } from './views';

/** Operator and test controls under /sandbox (same internal-key auth as the core). */
export function registerAdminRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get('/sandbox/ledger', async () => ({
    bank_handle: ctx.handle,
    institution_code: ctx.institutionCode,
    accounts: (await ctx.accounts.listAccounts()).map(accountBody),
    transactions: (await ctx.movements.allTransactions()).map(ledgerLine),
  }));

  app.post('/sandbox/accounts', async (request, reply) => {
    const body = parse(openAccountBody, request.body);
    const account = await ctx.accounts.openAccount({
      customerRef: body.customer_ref,
      holderName: body.holder_name,
      currency: body.currency,
      balance: body.balance,
      ...(body.iban ? { iban: body.iban } : {}),
    });
    if (body.otp !== undefined) await ctx.accounts.setOtp(body.customer_ref, body.otp);
    return reply.code(201).send(accountBody(account));
  });

  /** Adds the customer if new and sets the OTP their bank accepts. */
  app.put<{ Params: { customerRef: string } }>('/sandbox/customers/:customerRef/otp', async (request, reply) => {
    await ctx.accounts.setOtp(request.params.customerRef, parse(setOtpBody, request.body).otp);
    return reply.code(204).send();
  });

  app.get('/sandbox/faults', async () => ({ faults: ctx.faults.current() }));
  app.post('/sandbox/faults', async (request) => {
    const body = parse(faultsBody, request.body);
    const plan = ctx.faults.inject({
      ...(body.latency_ms !== undefined ? { latencyMs: body.latency_ms } : {}),
      ...(body.error_rate !== undefined ? { errorRate: body.error_rate } : {}),
      ...(body.error_status !== undefined ? { errorStatus: body.error_status } : {}),
      ...(body.hang !== undefined ? { hang: body.hang } : {}),
      ...(body.after_booking !== undefined ? { afterBooking: body.after_booking } : {}),
      ...(body.times !== undefined ? { times: body.times } : {}),
      ...(body.operations !== undefined ? { operations: body.operations as CoreOperation[] } : {}),
    });
    return { faults: plan };
  });
  app.delete('/sandbox/faults', async (_request, reply) => {
    ctx.faults.clear();
    return reply.code(204).send();
  });

  app.get('/sandbox/requests', async () => {
    const counts = ctx.faults.requestCounts();
    return { total: counts.total, by_operation: counts.byOperation };
  });
  app.delete('/sandbox/requests', async (_request, reply) => {
    ctx.faults.resetCounts();
    return reply.code(204).send();
  });

  /** Where the gateway is, and the keys it issued to this bank at registration. */
  app.put('/sandbox/gateway', async (request, reply) => {
    const body = parse(gatewayBody, request.body);
    await ctx.configureGateway({
      url: body.url,
      bankKey: body.bank_key,
      ...(body.internal_key ? { internalKey: body.internal_key } : {}),
    });
    return reply.code(204).send();
  });
}
