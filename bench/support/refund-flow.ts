import { ok } from './http';
import type { BenchCustomer } from './bench-banks';
import type { PaymentFlow } from './payment-flow';

/**
 * What each worker's session is paid, and what each refund gives back of it: a session is
 * refunded in small parts until its amount is used up, so one payment per worker serves a whole
 * phase (no payment inside the measured refunds, and no two workers on one session's row).
 */
const REFUNDED_SESSION_AMOUNT = 100_000_000;
const REFUND_AMOUNT = 100;

/**
 * A refund phase's work: first one COMPLETED session per worker, paid by `payers` (at the
 * merchant's bank: same-bank refunds, internal; at the other bank: cross bank, over the rail);
 * then each call is one whole refund of worker `worker`'s session: POST
 * /payments/sessions/{id}/refunds, then GET /refunds/{id} until COMPLETED (cross bank: the payer's
 * bank has confirmed the credit). Latency is the whole refund.
 */
export async function refundWork(
  flow: PaymentFlow,
  payers: readonly BenchCustomer[],
  workers: number,
): Promise<(worker: number) => Promise<void>> {
  const sessions = await Promise.all(
    Array.from({ length: workers }, (_, worker) =>
      flow.paid(payers[worker % payers.length]!, flow.payeeSame, REFUNDED_SESSION_AMOUNT),
    ),
  );
  const { rest, merchantAuth } = flow;
  return async (worker) => {
    const refund = await ok(
      'POST',
      `${rest}/payments/sessions/${sessions[worker]!}/refunds`,
      { amount: REFUND_AMOUNT },
      merchantAuth,
    );
    let status: string = refund.status;
    while (status !== 'COMPLETED') {
      if (status === 'FAILED') throw new Error(`refund ${refund.refund_id} FAILED ${refund.failure_code}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
      status = (await ok('GET', `${rest}/refunds/${refund.refund_id}`, undefined, merchantAuth)).status;
    }
  };
}
