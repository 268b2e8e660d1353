import { bearer, sessionReaches, type Customer, type PaymentBank } from '../support/payments';
import type { TestPlatform } from '../support/platform';

export const admin = (t: TestPlatform): Record<string, string> => ({ 'x-service-admin-key': t.adminKey });

/** A cross-bank (or same-bank) payment from payer to payee, run to COMPLETED through checkout. */
export async function pay(
  t: TestPlatform,
  merchantKey: string,
  payer: Customer,
  payee: Customer,
  amount: number,
  currency = 'LYD',
): Promise<string> {
  const created = await t.rest('POST', '/payments/sessions', {
    headers: bearer(merchantKey),
    body: { amount, currency, destination: { type: 'alias', value: payee.alias } },
  });
  if (created.status !== 201) throw new Error(`session: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.session_id as string;
  const authorized = await t.rest('POST', `/pay/${id}/authorize`, {
    body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
  });
  if (authorized.status !== 200) throw new Error(`authorize: ${authorized.status} ${JSON.stringify(authorized.body)}`);
  await sessionReaches(t, merchantKey, id, 'COMPLETED');
  return id;
}

/** The sandbox ledger lines of a settlement position's reference, as `OPERATION IBAN AMOUNT`. */
export async function settlementLines(bank: PaymentBank, reference: string): Promise<string[]> {
  return (await bank.movements(reference)).map((line) => `${line.operation} ${line.iban} ${line.amount}`);
}

/** payments_unsettled_obligations{bank} as /metrics of the payments subgraph says (0 when absent). */
export async function unsettledGauge(t: TestPlatform, bank: string): Promise<number> {
  const text = await (await fetch(`${t.platform.subgraphUrls.payments!.replace(/\/graphql$/, '')}/metrics`)).text();
  const match = new RegExp(`^payments_unsettled_obligations\\{[^}]*bank="${bank}"[^}]*\\} (\\d+)`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}
