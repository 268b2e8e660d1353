import {
  benchCustomer,
  registerBenchBanks,
  type BenchBank,
  type BenchBanks,
  type BenchCustomer,
  type PublicPlatform,
} from './bench-banks';
import { ok } from './http';

/** RATE_LIMITS for the router: one client sends everything, the per-merchant limits would refuse the run, not measure it. */
export const UNLIMITED = JSON.stringify({
  session_create: { points: 1e9 },
  write: { points: 1e9 },
  read: { points: 1e9 },
});

export interface PaymentFlow {
  /** POST /payments/sessions for `payee`: the session id. */
  createSession(payee: BenchCustomer, amount?: number): Promise<string>;
  /** One whole payment by worker `worker`'s payer: create, authorize, poll GET /pay/{id}/status until COMPLETED. */
  pay(payee: BenchCustomer): (worker: number) => Promise<void>;
  /** One whole payment by `payer`: the COMPLETED session's id. */
  paid(payer: BenchCustomer, payee: BenchCustomer, amount: number): Promise<string>;
  /** `count` funded payers at the second bank (made on the first call). */
  payersCross(count: number): Promise<BenchCustomer[]>;
  /** Funded payers at the first bank, the merchant's (its settlement account is there). */
  payers: BenchCustomer[];
  /** The first bank's handle: the debtor of every cross-bank payment by `payers`. */
  payerBank: string;
  payeeSame: BenchCustomer;
  payeeCross: BenchCustomer;
  /** The public address and the merchant's credentials (refunds are the merchant's). */
  rest: string;
  merchantAuth: Record<string, string>;
}

/**
 * The two bench banks registered, `payers` funded payers at the first bank, a payee at each bank
 * and a merchant whose settlement account (refunds are paid from it) is funded at the first bank;
 * the calls of a payment through the platform's public address.
 */
export async function seedPaymentFlow(
  platform: PublicPlatform,
  cores: BenchBanks,
  payerCount: number,
  /** The merchant's webhook endpoint (payment events are delivered to it); none: no webhooks. */
  webhookUrl?: string,
): Promise<PaymentFlow> {
  const bankKeys = await registerBenchBanks(platform, cores);
  const [a, b] = cores.banks as [BenchBank, BenchBank];
  const customer = (bank: BenchBank, name: string, balance: number) =>
    benchCustomer(platform, cores, bankKeys[bank.handle]!, bank, name, balance);
  const payers: BenchCustomer[] = [];
  for (let i = 0; i < payerCount; i += 1) payers.push(await customer(a, `payer${i}`, 1_000_000_000_000));
  const payeeSame = await customer(a, 'shop', 0);
  const payeeCross = await customer(b, 'shop', 0);
  const settlement = await ok(
    'POST',
    `${a.url}/sandbox/accounts`,
    { customer_ref: `${a.handle}-merchant`, holder_name: 'Bench Shop', currency: 'LYD', balance: 1_000_000_000_000 },
    { 'x-service-internal-key': cores.internalKeyOf(a.handle) },
  );
  const merchant = await ok(
    'POST',
    `${platform.restUrl}/merchants`,
    {
      name: 'Bench Shop',
      mode: 'live',
      settlement_iban: settlement.iban,
      ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
    },
    { 'x-service-admin-key': platform.adminKey },
  );
  const auth = { authorization: `Bearer ${merchant.api_key as string}` };
  const rest = platform.restUrl;
  const createSession = async (payee: BenchCustomer, amount = 1_000): Promise<string> =>
    (
      await ok(
        'POST',
        `${rest}/payments/sessions`,
        { amount, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, reference: 'bench' },
        auth,
      )
    ).session_id;
  const paid = async (payer: BenchCustomer, payee: BenchCustomer, amount = 1_000): Promise<string> => {
    const id = await createSession(payee, amount);
    const authorized = await ok('POST', `${rest}/pay/${id}/authorize`, {
      payer: { type: 'alias', value: payer.alias },
      otp: payer.otp,
    });
    let status: string = authorized.status;
    while (status !== 'COMPLETED') {
      if (status === 'FAILED' || status === 'EXPIRED') throw new Error(`payment ${id} ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
      status = (await ok('GET', `${rest}/pay/${id}/status`, undefined, { 'x-session-token': authorized.session_token }))
        .status;
    }
    return id;
  };
  const pay = (payee: BenchCustomer) => async (worker: number) => {
    await paid(payers[worker % payers.length]!, payee);
  };
  const crossPayers: BenchCustomer[] = [];
  const payersCross = async (count: number): Promise<BenchCustomer[]> => {
    while (crossPayers.length < count)
      crossPayers.push(await customer(b, `payer${crossPayers.length}`, 1_000_000_000_000));
    return crossPayers;
  };
  return {
    createSession,
    pay,
    paid,
    payersCross,
    payers,
    payerBank: a.handle,
    payeeSame,
    payeeCross,
    rest,
    merchantAuth: auth,
  };
}
