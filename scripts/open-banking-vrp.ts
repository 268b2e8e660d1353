/**
 * Part 3 of `npm run demo:open-banking`: variable recurring payments (issue 51). The demo TPP asks
 * a customer for a VRP consent (at most 50 LYD a payment, 80 LYD a calendar day, 300 LYD a month
 * from today), the customer approves it on the consent page in Chromium after reading every limit,
 * then the TPP pays without SCA: within the limits (201, executed by the payments engine), beyond
 * the individual maximum (422 VRP_LIMIT_EXCEEDED naming it), reads what each period used, and
 * revokes the consent, after which its token pays no more.
 */
import { expectStatus } from './support/walkthrough';
import type { Walk, WalkthroughDemo } from './open-banking-walkthrough';

type Customer = WalkthroughDemo['customers'][number];

/** What the walkthrough's consent step needs for a consent of another kind. */
type Approve = (
  customer: Customer,
  request: { path: string; what: string; fields: Record<string, unknown> },
) => Promise<{ consentId: string; accessToken: string }>;

export interface VrpWalkResult {
  consentId: string;
  payments: Array<{ id: string; amount: number; status: string }>;
  /** The payment above the maximum individual amount. */
  refused: { status: number; code: string };
  /** Per limit after the payments: used and remaining in the current period. */
  usage: Array<{ period_type: string; used: number; remaining: number }>;
  /** Status of a payment tried after the TPP revoked the consent. */
  afterRevocation: number;
}

export async function variableRecurringPayments(
  walk: Walk,
  demo: WalkthroughDemo,
  approve: Approve,
): Promise<VrpWalkResult> {
  const { send, log } = walk;
  const payer = demo.customers.find(
    (c) => c.bank_handle === demo.customers[0]!.bank_handle && c !== demo.customers[0],
  )!;
  const payee = demo.customers.find((c) => c.bank_handle !== payer.bank_handle)!;
  log(
    `\n3. Variable recurring payments: ${payer.alias} lets the demo TPP sweep money to ${payee.alias}, within limits.`,
  );
  const grant = await approve(payer, {
    path: '/ob/vrp-consents',
    what: 'a VRP consent: at most 50 LYD a payment, 80 LYD a calendar day, 300 LYD a month from today',
    fields: {
      creditor: { type: 'alias', value: payee.alias },
      currency: 'LYD',
      reference: 'Savings sweep',
      control_parameters: {
        maximum_individual_amount: 50_000,
        periodic_limits: [
          { period_type: 'Day', period_alignment: 'Calendar', amount: 80_000 },
          { period_type: 'Month', period_alignment: 'Consent', amount: 300_000 },
        ],
      },
    },
  });
  const data = { authorization: `Bearer ${grant.accessToken}`, 'x-consent-id': grant.consentId };
  const pay = (amount: number) =>
    send('POST', '/ob/vrp-payments', {
      headers: { ...data, 'idempotency-key': `demo-vrp-${grant.consentId}-${amount}` },
      json: { consent_id: grant.consentId, amount, reference: 'Savings sweep' },
    });
  const settles = async (id: string): Promise<string> => {
    for (let i = 0; i < 200; i += 1) {
      const status = expectStatus(
        await send('GET', `/ob/vrp-payments/${id}`, { headers: data }),
        200,
        'reading the payment',
      ).status as string;
      if (status !== 'PROCESSING') return status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`VRP payment ${id} did not finish`);
  };

  log('\nTwo payments within the limits, no SCA: the payments engine moves the money over the rail.');
  const payments: VrpWalkResult['payments'] = [];
  for (const amount of [30_000, 45_000]) {
    const created = expectStatus(await pay(amount), 201, `the VRP payment of ${amount}`);
    payments.push({ id: created.payment_id as string, amount, status: await settles(created.payment_id as string) });
  }

  log('\nAbove the maximum individual amount: refused before any core call, naming the limit.');
  const over = await pay(60_000);
  const refused = { status: over.status, code: String((over.body as { error?: { code?: string } })?.error?.code) };

  log('\nWhat each period used so far.');
  const consent = expectStatus(
    await send('GET', `/ob/vrp-consents/${grant.consentId}`, { headers: data }),
    200,
    'reading the consent',
  );
  const usage = (consent.control_parameters.periodic_limits as VrpWalkResult['usage']).map((limit) => ({
    period_type: limit.period_type,
    used: limit.used,
    remaining: limit.remaining,
  }));

  log('\nThe TPP revokes the consent: its token pays no more.');
  expectStatus(
    await send('DELETE', `/ob/vrp-consents/${grant.consentId}`, {
      headers: { authorization: `Bearer ${walk.tppToken}` },
    }),
    204,
    'revoking the VRP consent',
  );
  const after = await pay(1_000);
  return { consentId: grant.consentId, payments, refused, usage, afterRevocation: after.status };
}
