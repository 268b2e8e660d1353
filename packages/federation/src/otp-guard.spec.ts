import { GatewayError, createLogger } from '@gateway/kernel';
import { GIVE_BACK_WITHIN_MS, OtpGuard } from './otp-guard';
import type { ServiceClient } from './service-client';

interface Sent {
  operation: 'take' | 'settle';
  settlements: Array<{ attemptId: string }>;
}

/**
 * The registry as the guard sees it: every call recorded, takes answered with a fresh check and
 * the give-backs they carried as settled, but for those of `held` (another call held their
 * customer's row: skipped).
 */
function registry(fail: { take?: boolean } = {}, held = new Set<string>()) {
  const sent: Sent[] = [];
  let attempts = 0;
  const call = (async (query: string, variables: Record<string, unknown>) => {
    if (query.includes('takeOtpAttempt')) {
      const carried = (variables.settle as Sent['settlements']) ?? [];
      sent.push({ operation: 'take', settlements: carried });
      if (fail.take) throw new GatewayError('SERVICE_UNAVAILABLE', 'identity is unreachable');
      const settled = carried.map((given) => given.attemptId).filter((id) => !held.has(id));
      return { takeOtpAttempt: { attemptId: `otp_${(attempts += 1)}`, retryAfterSeconds: null, settled } };
    }
    sent.push({ operation: 'settle', settlements: variables.settlements as Sent['settlements'] });
    return { settleOtpAttempts: true };
  }) as ServiceClient;
  return { call, sent };
}

const customer = { bankHandle: 'alpha', bankCustomerRef: 'cust-1', world: 'live' as const, client: '203.0.113.1' };
const accepted = () => Promise.resolve();
const refused = () => Promise.reject(new GatewayError('OTP_INVALID'));
const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ids = (sent: Sent) => sent.settlements.map((settlement) => settlement.attemptId);

describe('OtpGuard: one trip to the registry per OTP check', () => {
  const logger = createLogger('otp-guard-spec', 'silent');

  it('gives an accepted check back on the next take, in no call of its own', async () => {
    const { call, sent } = registry();
    const guard = new OtpGuard(call, 'secret-0123456789abcdef0123456789abcdef', logger);
    await guard.check(customer, '111111', accepted);
    await guard.check(customer, '222222', accepted);
    await later(GIVE_BACK_WITHIN_MS + 70);
    expect(sent.map((call) => [call.operation, ids(call)])).toEqual([
      ['take', []],
      ['take', ['otp_1']],
      ['settle', ['otp_2']],
    ]);
  });

  it('sends give-backs in a batch of their own when no take comes, and never gives back a refused check', async () => {
    const { call, sent } = registry();
    const guard = new OtpGuard(call, 'secret-0123456789abcdef0123456789abcdef', logger);
    await Promise.all([
      guard.check(customer, '111111', accepted),
      guard.check({ ...customer, bankCustomerRef: 'cust-2' }, '222222', accepted),
    ]);
    await expect(guard.check(customer, '333333', refused)).rejects.toMatchObject({ code: 'OTP_INVALID' });
    await later(GIVE_BACK_WITHIN_MS + 70);
    // The two accepted ones are given back (on the refused check's take, or in a batch); the refused one never.
    expect(sent.flatMap(ids).sort()).toEqual(['otp_1', 'otp_2']);
  });

  it('sends again a give-back the registry skipped (another call held its row): on the next take, else in the batch', async () => {
    const held = new Set(['otp_1']);
    const { call, sent } = registry({}, held);
    const guard = new OtpGuard(call, 'secret-0123456789abcdef0123456789abcdef', logger);
    await guard.check(customer, '111111', accepted);
    await guard.check({ ...customer, bankCustomerRef: 'cust-2' }, '222222', accepted);
    held.clear();
    await guard.check({ ...customer, bankCustomerRef: 'cust-3' }, '333333', accepted);
    await guard.check(customer, '444444', accepted);
    held.add('otp_4');
    await guard.check(customer, '555555', accepted);
    await later(GIVE_BACK_WITHIN_MS + 70);
    expect(sent.map((call) => [call.operation, ids(call)])).toEqual([
      ['take', []],
      ['take', ['otp_1']], // skipped: sent again with the next
      ['take', ['otp_1', 'otp_2']],
      ['take', ['otp_3']],
      ['take', ['otp_4']], // skipped, and no take comes: in the batch
      ['settle', ['otp_4', 'otp_5']],
    ]);
  });

  it('keeps the give-backs of a take that failed for the next call', async () => {
    const working = registry();
    const guard = new OtpGuard(working.call, 'secret-0123456789abcdef0123456789abcdef', logger);
    await guard.check(customer, '111111', accepted);
    const failing = registry({ take: true });
    (guard as unknown as { call: ServiceClient }).call = failing.call;
    await expect(guard.check(customer, '222222', accepted)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    (guard as unknown as { call: ServiceClient }).call = working.call;
    await later(GIVE_BACK_WITHIN_MS + 70);
    expect(working.sent.flatMap(ids)).toEqual(['otp_1']);
  });
});
