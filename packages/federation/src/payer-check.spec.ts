import { createLogger, GatewayError } from '@gateway/kernel';
import { Directory } from './directory';
import { GIVE_BACK_WITHIN_MS, OtpGuard } from './otp-guard';
import { PayerCheck } from './payer-check';
import { ServiceCallError, type ServiceClient } from './service-client';

const SECRET = 'secret-0123456789abcdef0123456789abcdef';
const logger = createLogger('payer-check-spec', 'silent');

const amina = {
  handle: 'amina',
  iban: 'LY83002048000020100120361',
  bankHandle: 'oasis',
  institutionCode: '002',
  bankCustomerRef: 'c1',
  status: 'ACTIVE',
};
const oasis = { handle: 'oasis', institutionCode: '002', coreBaseUrl: 'http://core' };

interface Sent {
  operation: string;
  variables: Record<string, unknown>;
}

/**
 * The router as payments sees it: every call recorded by operation name, the payer take answered
 * with `payer` (its bank's routing when asked, `bank` null: not participating) and a fresh check.
 */
function router(
  options: { payer?: Record<string, unknown>; bank?: unknown; repeated?: boolean; failBank?: boolean } = {},
) {
  const sent: Sent[] = [];
  let attempts = 0;
  const payer = options.payer ?? amina;
  const call = (async (query: string, variables: Record<string, unknown> = {}) => {
    const operation = /^(?:query|mutation) (\w+)/.exec(query)![1]!;
    sent.push({ operation, variables });
    // Every give-back a take carries is applied (none of their rows held by another call).
    const settled = ((variables.settle ?? []) as Array<{ attemptId: string }>).map((given) => given.attemptId);
    const attempt = () => ({
      attemptId: `otp_${(attempts += 1)}`,
      retryAfterSeconds: null,
      repeated: !!options.repeated,
    });
    switch (operation) {
      case 'TakePayerOtpAttempt':
      case 'TakePayerOtpAttemptWithBank': {
        const withBank = operation.endsWith('WithBank');
        const answer = {
          takePayerOtpAttempt: {
            routing: {
              ...payer,
              ...(withBank
                ? { bank: { routing: options.failBank ? null : 'bank' in options ? options.bank : oasis } }
                : {}),
            },
            attempt: payer.status === 'ACTIVE' ? attempt() : null,
            settled,
          },
        };
        if (withBank && options.failBank) throw new ServiceCallError('SERVICE_UNAVAILABLE', 'banks', undefined, answer);
        return answer;
      }
      case 'TakeOtpAttempt':
        return { takeOtpAttempt: { ...attempt(), settled } };
      case 'BankRouting':
        return { bankRouting: { ...oasis, handle: variables.handle ?? 'oasis' } };
      case 'SettleOtpAttempts':
        return { settleOtpAttempts: true };
      default:
        throw new Error(`unexpected ${operation}`);
    }
  }) as ServiceClient;
  const operations = () => sent.map((entry) => entry.operation);
  const givenBack = () =>
    sent.flatMap((entry) =>
      (
        (entry.variables.settlements ?? entry.variables.settle ?? []) as Array<{
          customerRef: string;
          attemptId: string;
        }>
      ).map((settlement) => `${settlement.customerRef}/${settlement.attemptId}`),
    );
  return { call, sent, operations, givenBack };
}

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const checkOf = (registry: ReturnType<typeof router>, bankMs = 5_000) => {
  const directory = new Directory(registry.call, { bankMs, aliasMs: 1_000 });
  return new PayerCheck(directory, new OtpGuard(registry.call, SECRET, logger));
};

describe('PayerCheck: a payer, their bank and their OTP check in one trip', () => {
  it("asks once, with the bank's routing the first time and without it while the bank is cached; the give-back rides on the next take", async () => {
    const registry = router();
    const payers = checkOf(registry);
    const first = await payers.take({ alias: 'Amina' }, '123456', 'live', '203.0.113.1');
    expect(first.payer).toEqual(amina);
    expect(first.bank).toEqual(oasis);
    await first.check.verify(() => Promise.resolve());
    const second = await payers.take({ alias: 'amina' }, '123456', 'live', '203.0.113.1');
    expect(second.bank).toEqual(oasis);
    expect(registry.operations()).toEqual(['TakePayerOtpAttemptWithBank', 'TakePayerOtpAttempt']);
    // The accepted check rode on the second take, under the customer the registry resolved.
    expect(registry.sent[1]!.variables.settle).toEqual([
      { bankHandle: 'oasis', customerRef: 'c1', attemptId: 'otp_1' },
    ]);
    expect(registry.sent[0]!.variables).toMatchObject({ alias: 'Amina', livemode: true, client: '203.0.113.1' });
    // The guess is keyed by the lookup, never the OTP in clear; the same OTP for the same payer is the same guess.
    expect(registry.sent[0]!.variables.guess).toMatch(/^[0-9a-f]{64}$/);
    expect(registry.sent[1]!.variables.guess).toBe(registry.sent[0]!.variables.guess);
    expect(JSON.stringify(registry.sent)).not.toContain('123456');
  });

  it("takes a new payer's check without the bank's routing while banks are cached: the bank comes from the cache, or is asked for after the take when it is another", async () => {
    const zaid = { ...amina, handle: 'zaid', iban: 'LY83002048000020100120362', bankCustomerRef: 'c2' };
    const warmed = (registry: ReturnType<typeof router>) => {
      const directory = new Directory(registry.call, { bankMs: 5_000, aliasMs: 1_000 });
      // Amina paid a moment ago: her bank's routing is cached.
      directory.learn({ alias: 'amina' }, amina as never, oasis as never);
      return new PayerCheck(directory, new OtpGuard(registry.call, SECRET, logger));
    };
    const sameBank = router({ payer: zaid });
    const taken = await warmed(sameBank).take({ alias: 'zaid' }, '123456', 'live', null);
    expect(taken).toMatchObject({ payer: zaid, bank: oasis });
    expect(sameBank.operations()).toEqual(['TakePayerOtpAttempt']);

    const noor = { ...zaid, handle: 'noor', bankHandle: 'sahara', bankCustomerRef: 'c3' };
    const otherBank = router({ payer: noor });
    const elsewhere = await warmed(otherBank).take({ alias: 'noor' }, '123456', 'live', null);
    expect(elsewhere.bank.handle).toBe('sahara');
    expect(otherBank.operations()).toEqual(['TakePayerOtpAttempt', 'BankRouting']);
  });

  it("asks for the bank's routing every time when the bank cache is off, and keys a test-world check under the test prefix", async () => {
    const registry = router();
    const payers = checkOf(registry, 0);
    const taken = await payers.take({ iban: amina.iban }, '123456', 'test', null);
    await payers.take({ iban: amina.iban }, '123456', 'test', null);
    expect(registry.operations()).toEqual(['TakePayerOtpAttemptWithBank', 'TakePayerOtpAttemptWithBank']);
    expect(registry.sent[0]!.variables).toMatchObject({ iban: amina.iban, livemode: false, client: 'unknown' });
    taken.check.release();
    await later(GIVE_BACK_WITHIN_MS + 70);
    expect(registry.givenBack()).toEqual(['test:c1/otp_1']);
  });

  it('answers test payers in the test world without the registry resolving them: the check is taken alone, under the test key', async () => {
    const registry = router();
    const payers = checkOf(registry);
    const taken = await payers.take({ alias: 'success@oasis' }, '123456', 'test', null);
    expect(taken.payer).toMatchObject({
      handle: 'success@oasis',
      bankHandle: 'oasis',
      bankCustomerRef: 'test-success',
    });
    expect(registry.operations()).toEqual(['BankRouting', 'TakeOtpAttempt']);
    expect(registry.sent[1]!.variables).toMatchObject({ bankHandle: 'oasis', customerRef: 'test:test-success' });
  });

  it('refuses an INACTIVE alias with nothing taken, and gives back the check of a payer whose bank takes no part', async () => {
    const inactive = router({ payer: { ...amina, status: 'INACTIVE' } });
    await expect(checkOf(inactive).take({ alias: 'amina' }, '1', 'live', null)).rejects.toMatchObject({
      code: 'ALIAS_INACTIVE',
    });
    const suspended = router({ bank: null });
    await expect(checkOf(suspended).take({ alias: 'amina' }, '1', 'live', null)).rejects.toMatchObject({
      code: 'BANK_NOT_PARTICIPATING',
    });
    await later(GIVE_BACK_WITHIN_MS + 70);
    expect([...inactive.givenBack(), ...suspended.givenBack()]).toEqual(['c1/otp_1']);
  });

  it('gives back a check the registry took when a later part of the answer failed (the banks subgraph)', async () => {
    const registry = router({ failBank: true });
    await expect(checkOf(registry).take({ alias: 'amina' }, '1', 'live', null)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    await later(GIVE_BACK_WITHIN_MS + 70);
    expect(registry.givenBack()).toEqual(['c1/otp_1']);
  });

  it('never gives back a repeated check it releases: the earlier call that took it judges it', async () => {
    const registry = router({ repeated: true });
    const taken = await checkOf(registry).take({ alias: 'amina' }, '1', 'live', null);
    taken.check.release();
    await later(GIVE_BACK_WITHIN_MS + 70);
    expect(registry.givenBack()).toEqual([]);
    // Judged by the bank, it is given back as before (accepted) or kept (refused).
    await taken.check.verify(() => Promise.resolve());
    await expect(taken.check.verify(() => Promise.reject(new GatewayError('OTP_INVALID')))).rejects.toMatchObject({
      code: 'OTP_INVALID',
    });
    await later(GIVE_BACK_WITHIN_MS + 70);
    expect(registry.givenBack()).toEqual(['c1/otp_1']);
  });
});
