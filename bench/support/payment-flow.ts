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
  payeeSame: BenchCustomer;
  payeeCross: BenchCustomer;
}

/**
 * The two bench banks registered, `payers` funded payers at the first bank, a payee at each bank
 * and a merchant; the calls of a payment through the platform's public address.
 */
export async function seedPaymentFlow(
  platform: PublicPlatform,
  cores: BenchBanks,
  payerCount: number,
): Promise<PaymentFlow> {
  const bankKeys = await registerBenchBanks(platform, cores);
  const [a, b] = cores.banks as [BenchBank, BenchBank];
  const customer = (bank: BenchBank, name: string, balance: number) =>
    benchCustomer(platform, cores, bankKeys[bank.handle]!, bank, name, balance);
  const payers: BenchCustomer[] = [];
  for (let i = 0; i < payerCount; i += 1) payers.push(await customer(a, `payer${i}`, 1_000_000_000_000));
  const payeeSame = await customer(a, 'shop', 0);
  const payeeCross = await customer(b, 'shop', 0);
  const merchant = await ok(
    'POST',
    `${platform.restUrl}/merchants`,
    { name: 'Bench Shop', mode: 'live' },
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
  const pay = (payee: BenchCustomer) => async (worker: number) => {
    const payer = payers[worker % payers.length]!;
    const id = await createSession(payee);
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
  };
  return { createSession, pay, payeeSame, payeeCross };
}
