import { randomInt } from 'node:crypto';
import { TEST_OTP } from '@gateway/bank-sandbox';
import { startMinimalCore, type MinimalCore } from '@gateway/bank-core-client/testing';
import { newSecret } from '@gateway/kernel';
import { bearer, FAST_ENGINE, sessionReaches } from '../support/payments';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * A bank that registers a sandbox core of its own (API-CONTRACT "Test mode"): test objects' core
 * calls go there, never to its live core and not to the built-in test bank; callbacks signed with
 * the sandbox key confirm test movements only, and the live key never confirms a test one.
 * Both cores are written from the spec alone (minimal cores).
 */
describe('test mode: a bank with a sandbox core of its own', () => {
  let t: TestPlatform;
  let live: MinimalCore;
  let sandbox: MinimalCore;
  let bank: {
    handle: string;
    institutionCode: string;
    bankKey: string;
    internalKey: string;
    sandboxInternalKey: string;
  };
  let merchant: { apiKey: string };
  const liveKey = newSecret('sik_');
  const sandboxKey = newSecret('sik_test_');

  /** An account at both cores (a bank's sandbox mirrors its accounts), enrolled under an alias. */
  const customer = async (otp: string) => {
    const account = randomInt(1, 2 ** 40);
    const iban = lyIban(bank.institutionCode, account);
    const customerRef = `sbx-${account}`;
    live.openAccount(iban, { customerRef, otp: '999999', balance: 500_000 });
    sandbox.openAccount(iban, { customerRef, otp, balance: 500_000 });
    const { handle } = await t.seed.claimAlias(bank, { iban, bank_customer_ref: customerRef });
    return { alias: handle, iban };
  };
  const confirm = (key: string, sessionId: string, creditorIban: string, amount: number) =>
    t.rest('POST', '/service/callbacks/v1/payment/credit-confirmed', {
      headers: { 'x-service-internal-key': key },
      body: {
        payment_reference: sessionId,
        session_id: sessionId,
        creditor_iban: creditorIban,
        amount,
        currency: 'LYD',
        rrn: '123456789012',
      },
    });

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    live = await startMinimalCore({ internalKey: liveKey });
    sandbox = await startMinimalCore({ internalKey: sandboxKey });
    const registered = await t.rest('POST', '/banks', {
      headers: { 'x-service-admin-key': t.adminKey },
      body: {
        bank_handle: `sbx${randomInt(100, 999)}`,
        display_name: 'Bank with a sandbox',
        country: 'LY',
        core_base_url: live.url,
        internal_key: liveKey,
        sandbox_core_base_url: sandbox.url,
        sandbox_internal_key: sandboxKey,
        settlement_account_iban: lyIban('777', 1),
        contact_email: 'ops@sandbox.example',
        institution_code: '777',
      },
    });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ sandbox_core_base_url: sandbox.url, sandbox_internal_key: sandboxKey });
    bank = {
      handle: registered.body.bank_handle,
      institutionCode: '777',
      bankKey: registered.body.bank_key,
      internalKey: liveKey,
      sandboxInternalKey: sandboxKey,
    };
    merchant = await t.seed.createMerchant({ name: 'Sandbox Shop', mode: 'test' });
  });
  afterAll(async () => {
    await live?.stop();
    await sandbox?.stop().catch(() => undefined);
    await t?.stop();
  });

  it('refuses a sandbox core that is the live core, or a sandbox key that is the live key', async () => {
    const base = {
      display_name: 'Twin',
      country: 'LY',
      contact_email: 'ops@twin.example',
      settlement_account_iban: lyIban('778', 1),
      institution_code: '778',
    };
    const same = await t.rest('POST', '/banks', {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { ...base, bank_handle: 'twin-a', core_base_url: live.url, sandbox_core_base_url: `${live.url}/` },
    });
    expect([same.status, same.body.error.code, same.body.error.detail]).toEqual([
      400,
      'VALIDATION_ERROR',
      expect.stringContaining('sandbox_core_base_url'),
    ]);
    const key = newSecret('sik_');
    const sameKey = await t.rest('POST', '/banks', {
      headers: { 'x-service-admin-key': t.adminKey },
      body: {
        ...base,
        bank_handle: 'twin-b',
        core_base_url: live.url,
        internal_key: key,
        sandbox_core_base_url: sandbox.url,
        sandbox_internal_key: key,
      },
    });
    expect([sameKey.status, sameKey.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('a test payment between two of its customers moves money at its sandbox core only, with the sandbox key', async () => {
    const payer = await customer('246810');
    const payee = await customer('135790');
    const liveCalls = live.calls.length;
    const session = (
      await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount: 7_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      })
    ).body;
    // The sandbox core's own OTP for its customer; the built-in test bank's 123456 means nothing here.
    expect(
      (
        await t.rest('POST', `/pay/${session.session_id}/authorize`, {
          body: { payer: { type: 'alias', value: payer.alias }, otp: TEST_OTP },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await t.rest('POST', `/pay/${session.session_id}/authorize`, {
          body: { payer: { type: 'alias', value: payer.alias }, otp: '246810' },
        })
      ).status,
    ).toBe(200);
    await sessionReaches(t, merchant.apiKey, session.session_id, 'COMPLETED');
    expect([sandbox.balance(payer.iban), sandbox.balance(payee.iban)]).toEqual([493_000, 507_000]);
    expect([live.balance(payer.iban), live.balance(payee.iban)]).toEqual([500_000, 500_000]);
    expect(live.calls.length).toBe(liveCalls);
    const sandboxCalls = sandbox.calls.filter((call) => call.body?.reference === session.session_id);
    expect(sandboxCalls.map((call) => call.path)).toEqual(['/accounts/debit', '/accounts/credit']);
    expect(sandboxCalls.every((call) => call.headers['x-service-internal-key'] === sandboxKey)).toBe(true);
  });

  it('a test rail credit to its customer is confirmed by its sandbox key only; the live key cannot confirm it', async () => {
    const payee = await customer('112233');
    const session = (
      await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount: 3_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      })
    ).body;
    // The payer is a test payer at another bank (the built-in test bank): the credit crosses the rail to the sandbox core.
    const other = await t.seed.registerBank();
    const answer = await t.rest('POST', `/pay/${session.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: `success@${other.handle}` }, otp: TEST_OTP },
    });
    expect(answer.body.status).toBe('SETTLEMENT_PENDING');
    await sessionReaches(t, merchant.apiKey, session.session_id, 'SETTLEMENT_PENDING');
    expect(sandbox.balance(payee.iban)).toBe(503_000);
    expect(live.balance(payee.iban)).toBe(500_000);

    const byLiveKey = await confirm(liveKey, session.session_id, payee.iban, 3_000);
    expect([byLiveKey.status, byLiveKey.body.error.code]).toEqual([404, 'SESSION_NOT_FOUND']);
    expect((await confirm(sandboxKey, session.session_id, payee.iban, 3_000)).status).toBe(200);
    await sessionReaches(t, merchant.apiKey, session.session_id, 'COMPLETED');
  });

  it('the sandbox key never confirms a live movement', async () => {
    const liveMerchant = await t.seed.createMerchant({ name: 'Live Shop', mode: 'live' });
    const payee = await customer('445566');
    const session = (
      await t.rest('POST', '/payments/sessions', {
        headers: bearer(liveMerchant.apiKey),
        body: { amount: 2_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      })
    ).body;
    const byTestKey = await confirm(sandboxKey, session.session_id, payee.iban, 2_000);
    expect([byTestKey.status, byTestKey.body.error.code]).toEqual([404, 'SESSION_NOT_FOUND']);
  });

  it('PATCH /banks/{handle} moves its test world to another sandbox core (the old key stops at once) and back to the built-in test bank', async () => {
    const other = await t.seed.registerBank();
    const next = await startMinimalCore({ internalKey: newSecret('sik_test_') });
    const nextKey = newSecret('sik_test_');
    const patch = (body: Record<string, unknown>) =>
      t.rest('PATCH', `/banks/${other.handle}`, { headers: { 'x-service-bank-key': other.bankKey }, body });
    try {
      const missingKey = await patch({ sandbox_core_base_url: next.url });
      expect([missingKey.status, missingKey.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      const liveUrl = (
        await t.rest('GET', `/banks/${other.handle}`, { headers: { 'x-service-bank-key': other.bankKey } })
      ).body.core_base_url;
      expect((await patch({ sandbox_core_base_url: liveUrl, sandbox_internal_key: nextKey })).status).toBe(400);
      expect((await patch({ sandbox_core_base_url: next.url, sandbox_internal_key: nextKey })).status).toBe(200);
      const record = await t.rest('GET', `/banks/${other.handle}`, {
        headers: { 'x-service-bank-key': other.bankKey },
      });
      expect(record.body.sandbox_core_base_url).toBe(next.url);
      // Its key is the bank's test world's: it authenticates callbacks (an unknown session is 404, not 401).
      expect((await confirm(nextKey, 'ops_unknown', lyIban(other.institutionCode, 5), 1)).status).toBe(404);
      const replacement = newSecret('sik_test_');
      expect((await patch({ sandbox_core_base_url: next.url, sandbox_internal_key: replacement })).status).toBe(200);
      expect((await confirm(nextKey, 'ops_unknown', lyIban(other.institutionCode, 5), 1)).status).toBe(401);
      expect((await patch({ sandbox_core_base_url: null })).status).toBe(200);
      expect(
        (await t.rest('GET', `/banks/${other.handle}`, { headers: { 'x-service-bank-key': other.bankKey } })).body
          .sandbox_core_base_url,
      ).toBeNull();
      expect((await confirm(replacement, 'ops_unknown', lyIban(other.institutionCode, 5), 1)).status).toBe(401);
    } finally {
      await next.stop();
    }
  });

  it('its sandbox core down: test payments fail as live ones would (CBS_TIMEOUT / CBS_ERROR), and live payments go on', async () => {
    const payer = await customer('778899');
    const payee = await customer('998877');
    await sandbox.stop();
    const test = (
      await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      })
    ).body;
    const refused = await t.rest('POST', `/pay/${test.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: '778899' },
    });
    expect(['CBS_TIMEOUT', 'CBS_ERROR']).toContain(refused.body.error.code);
    // Nothing moved, so the session stays payable.
    expect(
      (await t.rest('GET', `/payments/sessions/${test.session_id}`, { headers: bearer(merchant.apiKey) })).body.status,
    ).toBe('PENDING');

    const liveMerchant = await t.seed.createMerchant({ name: 'Live Shop 2', mode: 'live' });
    const livePayment = (
      await t.rest('POST', '/payments/sessions', {
        headers: bearer(liveMerchant.apiKey),
        body: { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
      })
    ).body;
    expect(
      (
        await t.rest('POST', `/pay/${livePayment.session_id}/authorize`, {
          body: { payer: { type: 'alias', value: payer.alias }, otp: '999999' },
        })
      ).status,
    ).toBe(200);
    await sessionReaches(t, liveMerchant.apiKey, livePayment.session_id, 'COMPLETED');
    expect([live.balance(payer.iban), live.balance(payee.iban)]).toEqual([499_000, 501_000]);
  });
});
