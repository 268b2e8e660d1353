import { lyIban, startTestPlatform, type SeededBank, type TestPlatform } from '../support/platform';
import { call, expectError, expectRateLimitHeaders, responseSchemaOf } from '@gateway/rest-compat/testing';

const bankKey = (bank: SeededBank) => ({ 'x-service-bank-key': bank.bankKey });

/** /v1/identity/… end to end: rest-compat -> router -> identity subgraph. */
describe('REST identity registry', () => {
  let t: TestPlatform;
  let base: string;
  let bank: SeededBank;
  let otherBank: SeededBank;

  const claim = (handle: string, account: number, overrides: Record<string, unknown> = {}) => ({
    npt_handle: handle,
    iban: lyIban(bank.institutionCode, account),
    customer_display_name: 'Amira Ben Ali',
    bank_customer_ref: `cust-${account}`,
    ...overrides,
  });

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
    bank = await t.seed.registerBank();
    otherBank = await t.seed.registerBank();
  });
  afterAll(async () => {
    await t.stop();
  });

  it('POST /v1/identity/claim: 201 with the alias record', async () => {
    const answer = await call(base, 'POST', '/v1/identity/claim', {
      headers: bankKey(bank),
      body: claim('amira', 11, { phone: '+218912345601' }),
    });
    expect(answer.status).toBe(201);
    expect(responseSchemaOf('POST', '/v1/identity/claim').safeParse(answer.body).error).toBeUndefined();
    expect(answer.body).toMatchObject({
      npt_handle: 'amira',
      iban: lyIban(bank.institutionCode, 11),
      bank_handle: bank.handle,
      institution_code: bank.institutionCode,
      customer_display_name: 'A*** B*** A***',
      status: 'ACTIVE',
      deactivated_at: null,
      bank_customer_ref: 'cust-11',
      phone: '+218912345601',
    });
    expectRateLimitHeaders(answer);
  });

  it('refuses a taken handle (409 HANDLE_TAKEN), a malformed one (400 HANDLE_INVALID) and a wrong bank key (401)', async () => {
    await call(base, 'POST', '/v1/identity/claim', { headers: bankKey(bank), body: claim('taken', 12) });
    expectError(
      await call(base, 'POST', '/v1/identity/claim', { headers: bankKey(bank), body: claim('taken', 13) }),
      409,
      'HANDLE_TAKEN',
    );
    expectError(
      await call(base, 'POST', '/v1/identity/claim', { headers: bankKey(bank), body: claim('Bad Handle!', 14) }),
      400,
      'HANDLE_INVALID',
    );
    expectError(
      await call(base, 'POST', '/v1/identity/claim', {
        headers: { 'x-service-bank-key': 'sbk_nobody_x' },
        body: claim('nokey', 15),
      }),
      401,
      'INVALID_BANK_KEY',
    );
    expectError(await call(base, 'POST', '/v1/identity/claim', { body: claim('nokey', 15) }), 401, 'INVALID_BANK_KEY');
  });

  it('answers 422 when the IBAN is invalid or not at the claiming bank (API-CONTRACT)', async () => {
    expectError(
      await call(base, 'POST', '/v1/identity/claim', {
        headers: bankKey(bank),
        body: claim('badiban', 16, { iban: 'LY00002048000020100120361' }),
      }),
      422,
      'IBAN_INVALID',
    );
    expectError(
      await call(base, 'POST', '/v1/identity/claim', {
        headers: bankKey(bank),
        body: claim('elsewhere', 17, { iban: 'DE89370400440532013000' }),
      }),
      422,
      'IBAN_NOT_AT_BANK',
    );
  });

  it('GET /v1/identity/resolve: 200 by alias, alias@bank, phone and IBAN with exactly the public fields', async () => {
    await call(base, 'POST', '/v1/identity/claim', {
      headers: bankKey(bank),
      body: claim('resolvable', 21, { phone: '+218912345621' }),
    });
    const expected = {
      alias: 'resolvable',
      iban: lyIban(bank.institutionCode, 21),
      bank_handle: bank.handle,
      institution_code: bank.institutionCode,
      customer_display_name: 'A*** B*** A***',
    };
    for (const query of [
      'alias=resolvable',
      `alias=resolvable@${bank.handle}`,
      `phone=${encodeURIComponent('+218912345621')}`,
      `iban=${lyIban(bank.institutionCode, 21)}`,
    ]) {
      const answer = await call(base, 'GET', `/v1/identity/resolve?${query}`);
      expect([query, answer.status, answer.body]).toEqual([query, 200, expected]);
      expectRateLimitHeaders(answer);
    }
    expect(responseSchemaOf('GET', '/v1/identity/resolve').safeParse(expected).error).toBeUndefined();
  });

  it('GET /v1/identity/resolve: 404 ALIAS_NOT_FOUND for an unknown alias or the wrong bank, 400 without exactly one lookup', async () => {
    expectError(await call(base, 'GET', '/v1/identity/resolve?alias=nobody'), 404, 'ALIAS_NOT_FOUND');
    await call(base, 'POST', '/v1/identity/claim', { headers: bankKey(bank), body: claim('elsewhere', 31) });
    expectError(
      await call(base, 'GET', `/v1/identity/resolve?alias=elsewhere@${otherBank.handle}`),
      404,
      'ALIAS_NOT_FOUND',
    );
    expectError(await call(base, 'GET', '/v1/identity/resolve'), 400, 'VALIDATION_ERROR');
    expectError(
      await call(base, 'GET', '/v1/identity/resolve?alias=elsewhere&phone=%2B218912345699'),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('DELETE /v1/identity/aliases/{handle}: 403 for another bank, 204 for the owner, then 422 ALIAS_INACTIVE', async () => {
    await call(base, 'POST', '/v1/identity/claim', { headers: bankKey(bank), body: claim('leaving', 41) });
    expectError(
      await call(base, 'DELETE', '/v1/identity/aliases/leaving', { headers: bankKey(otherBank) }),
      403,
      'FORBIDDEN',
    );
    expect((await call(base, 'GET', '/v1/identity/resolve?alias=leaving')).status).toBe(200);

    const answer = await call(base, 'DELETE', '/v1/identity/aliases/leaving', { headers: bankKey(bank) });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
    expectRateLimitHeaders(answer);

    expectError(await call(base, 'GET', '/v1/identity/resolve?alias=leaving'), 422, 'ALIAS_INACTIVE');
    expectError(
      await call(base, 'DELETE', '/v1/identity/aliases/neverclaimed', { headers: bankKey(bank) }),
      404,
      'ALIAS_NOT_FOUND',
    );
  });
});
