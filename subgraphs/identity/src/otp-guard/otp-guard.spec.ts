import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { sha256Hex, type Principal } from '@gateway/kernel';
import { start } from '../service';
import { OTP_GUARD_MAX_REFUSALS } from './otp-guard.service';

const TAKE = `mutation($bankHandle: String!, $customerRef: String!, $guess: String!) { takeOtpAttempt(bankHandle: $bankHandle, customerRef: $customerRef, guess: $guess) { attemptId retryAfterSeconds } }`;
const SETTLE = `mutation($attemptId: ID!) { settleOtpAttempt(attemptId: $attemptId) }`;
const payments: Principal = { kind: 'service', id: 'payments' };

describe('identity subgraph: OTP checks per customer', () => {
  let db: Database;
  let service: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  let guesses = 0;
  const take = (customerRef: string, guess = sha256Hex(`guess-${(guesses += 1)}`), principal: Principal = payments) =>
    client
      .execute(TAKE, { bankHandle: 'alpha', customerRef, guess }, principal)
      .then((data) => data.takeOtpAttempt as { attemptId: string | null; retryAfterSeconds: number | null });

  beforeAll(async () => {
    db = await openTestDatabase();
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  it('takes checks until the customer holds the maximum, then refuses with the seconds to wait; a check given back frees its place', async () => {
    const taken = [];
    for (let i = 0; i < OTP_GUARD_MAX_REFUSALS; i += 1) taken.push(await take('cust-1'));
    expect(taken.every((attempt) => attempt.attemptId?.startsWith('otp_') && attempt.retryAfterSeconds === null)).toBe(true);
    const refused = await take('cust-1');
    expect(refused.attemptId).toBeNull();
    expect(refused.retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect((await take('cust-2')).attemptId).toMatch(/^otp_/);

    await client.execute(SETTLE, { attemptId: taken[0]!.attemptId }, payments);
    expect((await take('cust-1')).attemptId).toMatch(/^otp_/);
    expect((await take('cust-1')).attemptId).toBeNull();
  });

  it('answers the same guess while it is held with the same check: a double submit is one guess', async () => {
    const guess = sha256Hex('same');
    const first = await take('cust-5', guess);
    expect(await take('cust-5', guess)).toEqual(first);
    for (let i = 0; i < OTP_GUARD_MAX_REFUSALS - 1; i += 1) expect((await take('cust-5')).attemptId).toMatch(/^otp_/);
    expect((await take('cust-5')).attemptId).toBeNull();
    expect(await take('cust-5', guess)).toEqual(first);
    expect(await client.errorCode(TAKE, { bankHandle: 'alpha', customerRef: 'cust-5', guess: '123456' }, payments)).toBe('VALIDATION_ERROR');
  });

  it('counts concurrent takes one by one', async () => {
    const answers = await Promise.all(Array.from({ length: 9 }, () => take('cust-3')));
    expect(answers.filter((attempt) => attempt.attemptId !== null)).toHaveLength(OTP_GUARD_MAX_REFUSALS);
  });

  it('is for platform services only', async () => {
    for (const principal of [{ kind: 'anonymous' }, { kind: 'bank', id: 'alpha' }, { kind: 'merchant', id: 'mer_1' }] as Principal[]) {
      expect(await client.errorCode(TAKE, { bankHandle: 'alpha', customerRef: 'cust-4', guess: sha256Hex('x') }, principal)).toMatch(/UNAUTHORIZED|FORBIDDEN|INVALID_BANK_KEY/);
    }
  });
});
