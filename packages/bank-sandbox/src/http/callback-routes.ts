import type { FastifyInstance } from 'fastify';
import { BankError } from '../errors';
import type { SandboxContext } from './context';
import { enrollBody, parse } from './schemas';

/** Bank-side callbacks for the national infrastructure. */
export function registerCallbackRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  /**
   * The gateway asks the bank to enroll an alias; the bank claims it at the gateway's identity
   * registry with its bank key. Synchronous on purpose: the caller learns at once whether the
   * claim worked (201) or why not (409 HANDLE_TAKEN, 400 HANDLE_INVALID, ...), relayed as the
   * gateway answered it.
   */
  app.post('/service/callbacks/v1/alias/enroll', async (request, reply) => {
    const body = parse(enrollBody, request.body);
    const account = await ctx.accounts.getAccount(body.account_iban);
    if (!account || account.customerRef !== body.customer_ref) {
      throw new BankError(
        404,
        'ACCOUNT_NOT_FOUND',
        `no account ${body.account_iban} for customer ${body.customer_ref} at this bank`,
      );
    }
    const answer = await ctx.gateway.claimAlias(
      {
        npt_handle: body.alias,
        iban: account.iban,
        customer_display_name: account.holderName,
        bank_customer_ref: body.customer_ref,
      },
      request.id,
    );
    ctx.logger.info(
      { req_id: request.id, alias: body.alias, status: answer.status },
      'alias enrollment relayed to the gateway',
    );
    return reply.code(answer.status).send(answer.body ?? undefined);
  });
}
