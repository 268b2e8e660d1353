import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';
import { call, expectError, expectRateLimitHeaders, responseSchemaOf } from '@gateway/rest-compat/testing';

/** POST/GET/PATCH /banks… end to end: rest-compat -> router -> banks subgraph -> database. */
describe('REST banks', () => {
  let t: TestPlatform;
  let base: string;
  let admin: Record<string, string>;

  const registration = (code: string, overrides: Record<string, unknown> = {}) => ({
    bank_handle: `rb${code}`,
    display_name: `REST Bank ${code}`,
    country: 'LY',
    core_base_url: 'http://127.0.0.1:9',
    settlement_account_iban: lyIban(code, 1),
    contact_email: `ops@rb${code}.ly`,
    institution_code: code,
    ...overrides,
  });

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
    admin = { 'x-service-admin-key': t.adminKey };
  });
  afterAll(async () => {
    await t.stop();
  });

  it('registers a bank: 201 with the record, bank_key and internal_key', async () => {
    const answer = await call(base, 'POST', '/banks', {
      headers: admin,
      body: registration('401', { ob_enabled: true, ob_scopes_supported: ['accounts:read'] }),
    });
    expect(answer.status).toBe(201);
    expect(responseSchemaOf('POST', '/banks').safeParse(answer.body).error).toBeUndefined();
    expect(answer.body).toMatchObject({
      bank_handle: 'rb401',
      display_name: 'REST Bank 401',
      institution_code: '401',
      status: 'ACTIVE',
      core_base_url: 'http://127.0.0.1:9',
      contact_email: 'ops@rb401.ly',
      capabilities: { bank_handle: 'rb401', ob_enabled: true, ob_scopes_supported: ['accounts:read'] },
      bank_key: expect.stringMatching(/^sbk_rb401_/),
      internal_key: expect.any(String),
    });
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
    expectRateLimitHeaders(answer);
  });

  it('refuses a second registration of the handle with 409 BANK_ALREADY_REGISTERED', async () => {
    await call(base, 'POST', '/banks', { headers: admin, body: registration('402') });
    expectError(
      await call(base, 'POST', '/banks', { headers: admin, body: registration('402') }),
      409,
      'BANK_ALREADY_REGISTERED',
    );
  });

  it('refuses registration without the admin key (401), and passes the subgraph validation detail on (400)', async () => {
    expectError(
      await call(base, 'POST', '/banks', {
        headers: { 'x-service-admin-key': `${t.adminKey}x` },
        body: registration('403'),
      }),
      401,
      'UNAUTHORIZED',
    );
    expectError(await call(base, 'POST', '/banks', { body: registration('403') }), 401, 'UNAUTHORIZED');
    const invalid = await call(base, 'POST', '/banks', {
      headers: admin,
      body: registration('404', { contact_email: 'not-an-email' }),
    });
    expectError(invalid, 400, 'VALIDATION_ERROR');
    expect(invalid.body.error.detail).toMatch(/^contact_email:/);
  });

  describe('an existing bank', () => {
    let own: { handle: string; bankKey: string };
    let other: { handle: string; bankKey: string };

    beforeAll(async () => {
      own = await t.seed.registerBank();
      other = await t.seed.registerBank();
    });

    it('GET /banks/{handle}: 200 for the bank itself and for an operator, never a key', async () => {
      for (const headers of [{ 'x-service-bank-key': own.bankKey }, admin]) {
        const answer = await call(base, 'GET', `/banks/${own.handle}`, { headers });
        expect(answer.status).toBe(200);
        expect(responseSchemaOf('GET', '/banks/{handle}').safeParse(answer.body).error).toBeUndefined();
        expect(answer.body).toMatchObject({ bank_handle: own.handle, contact_email: `ops@${own.handle}.ly` });
        expect(answer.text).not.toMatch(/sbk_|internal_key|bank_key/);
      }
    });

    it("GET /banks/{handle}: 403 with another bank's key, 401 with a wrong key, 404 for an unknown bank", async () => {
      expectError(
        await call(base, 'GET', `/banks/${own.handle}`, { headers: { 'x-service-bank-key': other.bankKey } }),
        403,
        'FORBIDDEN',
      );
      expectError(
        await call(base, 'GET', `/banks/${own.handle}`, {
          headers: { 'x-service-bank-key': `sbk_${own.handle}_wrong` },
        }),
        401,
        'INVALID_BANK_KEY',
      );
      expectError(await call(base, 'GET', '/banks/nosuchbank', { headers: admin }), 404, 'BANK_NOT_REGISTERED');
    });

    it('GET /banks/{handle}/capabilities: public 200, 404 for an unknown bank', async () => {
      const answer = await call(base, 'GET', `/banks/${own.handle}/capabilities`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        bank_handle: own.handle,
        ob_enabled: false,
        ob_scopes_supported: [],
        sca_exemption_limit: expect.any(Number),
        sca_exemption_max_count: 5,
        sca_exemption_cumulative_limit: 100_000,
        max_consent_expiry_days: expect.any(Number),
      });
      expect(responseSchemaOf('GET', '/banks/{handle}/capabilities').safeParse(answer.body).error).toBeUndefined();
      expectError(await call(base, 'GET', '/banks/nosuchbank/capabilities'), 404, 'BANK_NOT_REGISTERED');
    });

    it('PATCH /banks/{handle}: the bank changes its capabilities (200), another bank may not (403)', async () => {
      const change = {
        ob_enabled: true,
        ob_scopes_supported: ['accounts:read', 'payments:write'],
        sca_exemption_limit: 5000,
        sca_exemption_max_count: 10,
        sca_exemption_cumulative_limit: 20_000,
        max_consent_expiry_days: 30,
      };
      const answer = await call(base, 'PATCH', `/banks/${own.handle}`, {
        headers: { 'x-service-bank-key': own.bankKey },
        body: change,
      });
      expect([answer.status, answer.body]).toEqual([200, { bank_handle: own.handle, ...change }]);
      expect((await call(base, 'GET', `/banks/${own.handle}/capabilities`)).body).toEqual({
        bank_handle: own.handle,
        ...change,
      });
      expectError(
        await call(base, 'PATCH', `/banks/${own.handle}`, {
          headers: { 'x-service-bank-key': other.bankKey },
          body: { ob_enabled: false },
        }),
        403,
        'FORBIDDEN',
      );
    });

    it('POST /banks/{handle}/rotate-key: 200 {bank_key}; the old key stops working at once', async () => {
      const bank = await t.seed.registerBank();
      const answer = await call(base, 'POST', `/banks/${bank.handle}/rotate-key`, {
        headers: { 'x-service-bank-key': bank.bankKey },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ bank_key: expect.stringMatching(new RegExp(`^sbk_${bank.handle}_`)) });
      expect(answer.body.bank_key).not.toBe(bank.bankKey);
      expectError(
        await call(base, 'GET', `/banks/${bank.handle}`, { headers: { 'x-service-bank-key': bank.bankKey } }),
        401,
        'INVALID_BANK_KEY',
      );
      expect(
        (await call(base, 'GET', `/banks/${bank.handle}`, { headers: { 'x-service-bank-key': answer.body.bank_key } }))
          .status,
      ).toBe(200);
      expectError(
        await call(base, 'POST', `/banks/${own.handle}/rotate-key`, {
          headers: { 'x-service-bank-key': other.bankKey },
        }),
        403,
        'FORBIDDEN',
      );
    });
  });
});
