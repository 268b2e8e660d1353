import { formatMoney, GatewayApiError, type GatewayClient } from '@gateway/sdk';
import { UsageError, type CliContext } from '../context';
import { print, progress } from '../io';

/**
 * The test payers of the built-in test bank (docs/test-mode.md "Test payers"): an alias
 * `<name>@<bank>` whose payments end one way, and the OTP they verify with. Kept here because the
 * CLI talks to the platform over HTTP only.
 */
const TEST_OTP = '123456';

interface Recipe {
  /** The test payer whose payment produces the event; none: the session is ended unpaid. */
  payer?: 'success' | 'insufficient';
  then?: 'refund';
}

/** Each event `trigger` can produce, and how: a test session paid (or not) by the right test payer. */
export const TRIGGERS: Record<string, Recipe> = {
  'payment.completed': { payer: 'success' },
  'payment.failed': { payer: 'insufficient' },
  'payment.expired': {},
  'refund.completed': { payer: 'success', then: 'refund' },
};

export interface TriggerFlags {
  bank?: string;
  payee?: string;
  amount?: string;
  currency?: string;
}

const FINAL = new Set(['COMPLETED', 'FAILED', 'EXPIRED']);

async function finalRefundStatus(gateway: GatewayClient, refundId: string): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const refund = await gateway.get('/refunds/{refund_id}', { params: { path: { refund_id: refundId } } });
    if (refund.status !== 'PROCESSING' || Date.now() > deadline) return refund.status;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Where a triggered payment goes: --payee, else the merchant's own settlement account (read over
 * the GraphQL API, which the REST base address also serves at /graphql). A test payer cannot pay
 * itself, so the payee is never the payer's own test account.
 */
async function payeeOf(context: CliContext, flags: TriggerFlags): Promise<{ type: 'alias' | 'iban'; value: string }> {
  if (flags.payee)
    return {
      type: flags.payee.includes('@') || !/^[A-Z]{2}\d\d/.test(flags.payee) ? 'alias' : 'iban',
      value: flags.payee,
    };
  const answer = await fetch(`${context.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${context.apiKey()}` },
    body: JSON.stringify({ query: '{ currentMerchant { settlementIban } }' }),
  });
  const body = (await answer.json()) as { data?: { currentMerchant?: { settlementIban: string | null } } };
  const iban = body.data?.currentMerchant?.settlementIban;
  if (!iban)
    throw new UsageError('the merchant has no settlement IBAN to pay: name a payee with --payee <alias or IBAN>');
  return { type: 'iban', value: iban };
}
const WAIT_MS = 60_000;

async function finalStatus(gateway: GatewayClient, sessionId: string): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const session = await gateway.get('/payments/sessions/{session_id}', {
      params: { path: { session_id: sessionId } },
    });
    if (FINAL.has(session.status) || Date.now() > deadline) return session.status;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * `gateway trigger payment.completed [--bank <handle>]`: produces the event for real, in test mode:
 * a session created with the profile's key and paid at the bank's test core by the test payer that
 * ends that way, so the event goes through the whole platform (webhooks, events API, listen).
 */
export async function trigger(context: CliContext, event: string | undefined, flags: TriggerFlags): Promise<number> {
  const recipe = event ? TRIGGERS[event] : undefined;
  if (!event || !recipe) throw new UsageError(`trigger one of: ${Object.keys(TRIGGERS).join(', ')}`);
  if (!context.apiKey().startsWith('mk_test_'))
    throw new UsageError('trigger runs in test mode only (an mk_test_ key)');
  const bank = flags.bank ?? context.config.bank;
  if (!bank) throw new UsageError('name the bank to pay at: --bank <handle> (or `gateway login --bank <handle>`)');
  const amount = flags.amount ? Number(flags.amount) : 1000;
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new UsageError('--amount: a positive integer in minor units');
  const gateway = context.gateway();
  const line = progress(context.io);
  try {
    const destination = await payeeOf(context, flags);
    line.step(`Creating a test session of ${formatMoney(amount, flags.currency ?? 'LYD')}`);
    const session = await gateway.post('/payments/sessions', {
      body: {
        amount,
        currency: flags.currency ?? 'LYD',
        destination,
        reference: `gateway trigger ${event}`,
      },
    });
    const sessionId = session.session_id;
    let refundId: string | null = null;
    let refundStatus: string | null = null;
    if (!recipe.payer) {
      line.step(`Ending ${sessionId} unpaid`);
      await gateway.post('/payments/sessions/{session_id}/expire', { params: { path: { session_id: sessionId } } });
    } else {
      const payer = `${recipe.payer}@${bank}`;
      line.step(`Paying ${sessionId} as ${payer}`);
      await gateway
        .post('/pay/{session_id}/authorize', {
          params: { path: { session_id: sessionId } },
          body: { payer: { type: 'alias', value: payer }, otp: TEST_OTP },
        })
        // The payer that fails is refused on the spot: that refusal is the event asked for.
        .catch((error: unknown) => {
          if (!(error instanceof GatewayApiError && error.code === 'INSUFFICIENT_FUNDS')) throw error;
        });
    }
    line.step(`Waiting for ${sessionId} to end`);
    const status = await finalStatus(gateway, sessionId);
    if (recipe.then === 'refund' && status === 'COMPLETED') {
      line.step(`Refunding ${sessionId}`);
      const refund = await gateway.post('/payments/sessions/{session_id}/refunds', {
        params: { path: { session_id: sessionId } },
        body: { reason: 'gateway trigger refund.completed' },
      });
      refundId = refund.refund_id;
      line.step(`Waiting for ${refundId} to end`);
      refundStatus = await finalRefundStatus(gateway, refundId);
    }
    line.done();
    print(
      context.io,
      context.json,
      { event, session_id: sessionId, status, refund_id: refundId, refund_status: refundStatus },
      () =>
        [
          `Triggered ${event}: session ${sessionId} is ${status}`,
          ...(refundId ? [`refund ${refundId} is ${refundStatus}`] : []),
        ].join(', '),
    );
    return 0;
  } finally {
    line.done();
  }
}
