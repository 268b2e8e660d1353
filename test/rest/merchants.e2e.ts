import { startTestPlatform, type TestPlatform } from '../support/platform';
import { call, expectError, expectRateLimitHeaders, responseSchemaOf } from '@gateway/rest-compat/testing';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** /merchants… end to end: rest-compat -> router -> payments subgraph. */
describe('REST merchants', () => {
  let t: TestPlatform;
  let base: string;
  let admin: Record<string, string>;

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
    admin = { 'x-service-admin-key': t.adminKey };
  });
  afterAll(async () => {
    await t.stop();
  });

  it('registers a merchant: 201 with merchant_id, api_key, webhook_secret and the record', async () => {
    const answer = await call(base, 'POST', '/merchants', {
      headers: admin,
      body: { name: 'Corner Shop', webhook_url: 'http://127.0.0.1:9/hooks' },
    });
    expect(answer.status).toBe(201);
    expect(responseSchemaOf('POST', '/merchants').safeParse(answer.body).error).toBeUndefined();
    expect(answer.body).toMatchObject({
      merchant_id: expect.stringMatching(/^mer_/),
      api_key: expect.stringMatching(/^mk_test_/),
      webhook_secret: expect.stringMatching(/^whsec_/),
      name: 'Corner Shop',
      mode: 'test',
      webhook_url: 'http://127.0.0.1:9/hooks',
      settlement_iban: null,
    });
    expectRateLimitHeaders(answer);

    const live = await call(base, 'POST', '/merchants', { headers: admin, body: { name: 'Live Shop', mode: 'live' } });
    expect(live.body.api_key).toMatch(/^mk_live_/);
  });

  it('refuses registration without the admin key (401) or with a merchant key (403)', async () => {
    const merchant = await t.seed.createMerchant();
    expectError(await call(base, 'POST', '/merchants', { body: { name: 'Nope' } }), 401, 'UNAUTHORIZED');
    expectError(
      await call(base, 'POST', '/merchants', { headers: bearer(merchant.apiKey), body: { name: 'Nope' } }),
      403,
      'FORBIDDEN',
    );
  });

  it('GET /merchants/{id}: 200 for an operator and the merchant itself; 404 for another merchant or an unknown id; 401 for a bad key', async () => {
    const merchant = await t.seed.createMerchant({ name: 'Reader', mode: 'test' });
    const other = await t.seed.createMerchant();
    for (const headers of [admin, bearer(merchant.apiKey)]) {
      const answer = await call(base, 'GET', `/merchants/${merchant.merchantId}`, { headers });
      expect(answer.status).toBe(200);
      expect(responseSchemaOf('GET', '/merchants/{id}').safeParse(answer.body).error).toBeUndefined();
      expect(answer.body).toMatchObject({ merchant_id: merchant.merchantId, name: 'Reader', mode: 'test' });
      expect(answer.text).not.toMatch(/api_key|webhook_secret|mk_test_/);
    }
    expectError(
      await call(base, 'GET', `/merchants/${merchant.merchantId}`, { headers: bearer(other.apiKey) }),
      404,
      'MERCHANT_NOT_FOUND',
    );
    expectError(await call(base, 'GET', '/merchants/mer_doesnotexist', { headers: admin }), 404, 'MERCHANT_NOT_FOUND');
    expectError(
      await call(base, 'GET', `/merchants/${merchant.merchantId}`, { headers: bearer('mk_test_wrong') }),
      401,
      'INVALID_API_KEY',
    );
  });

  it('PATCH /merchants/{id}: 200 with the changed record; webhook_url null removes it', async () => {
    const merchant = await t.seed.createMerchant({ webhook_url: 'http://127.0.0.1:9/old' });
    const renamed = await call(base, 'PATCH', `/merchants/${merchant.merchantId}`, {
      headers: bearer(merchant.apiKey),
      body: { name: 'Renamed Shop' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      merchant_id: merchant.merchantId,
      name: 'Renamed Shop',
      webhook_url: 'http://127.0.0.1:9/old',
    });
    const cleared = await call(base, 'PATCH', `/merchants/${merchant.merchantId}`, {
      headers: admin,
      body: { webhook_url: null },
    });
    expect(cleared.body).toMatchObject({ name: 'Renamed Shop', webhook_url: null });
    expectError(
      await call(base, 'PATCH', `/merchants/${merchant.merchantId}`, {
        headers: admin,
        body: { webhook_url: 'not a url' },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('POST /merchants/{id}/rotate-key: operator only, 200 {api_key}; the old key stops working at once', async () => {
    const merchant = await t.seed.createMerchant({ mode: 'test' });
    expectError(
      await call(base, 'POST', `/merchants/${merchant.merchantId}/rotate-key`, { headers: bearer(merchant.apiKey) }),
      403,
      'FORBIDDEN',
    );
    const answer = await call(base, 'POST', `/merchants/${merchant.merchantId}/rotate-key`, { headers: admin });
    expect([answer.status, answer.body]).toEqual([200, { api_key: expect.stringMatching(/^mk_test_/) }]);
    expectError(
      await call(base, 'GET', `/merchants/${merchant.merchantId}`, { headers: bearer(merchant.apiKey) }),
      401,
      'INVALID_API_KEY',
    );
    expect(
      (await call(base, 'GET', `/merchants/${merchant.merchantId}`, { headers: bearer(answer.body.api_key) })).status,
    ).toBe(200);
    expectError(
      await call(base, 'POST', '/merchants/mer_doesnotexist/rotate-key', { headers: admin }),
      404,
      'MERCHANT_NOT_FOUND',
    );
  });

  it('POST /merchants/{id}/rotate-webhook-secret: 200 {webhook_secret} for the merchant itself', async () => {
    const merchant = await t.seed.createMerchant();
    const answer = await call(base, 'POST', `/merchants/${merchant.merchantId}/rotate-webhook-secret`, {
      headers: bearer(merchant.apiKey),
    });
    expect([answer.status, answer.body]).toEqual([200, { webhook_secret: expect.stringMatching(/^whsec_/) }]);
    expect(answer.body.webhook_secret).not.toBe(merchant.webhookSecret);
  });
});
