import { createHash, randomBytes } from 'node:crypto';
import { call, expectError, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import { OB_REDIRECT, openBankingSeeds, type OpenBankingSeeds } from '../support/open-banking';
import { bearer, type Customer, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The customer's own consents (issue 51): signed in at their bank with alias and OTP, they see
 * their AUTHORISED consents (account access and VRP) and nobody else's, and revoke one: REVOKED
 * with revoked_by customer, its access token refused at once. Wrong OTPs, forged or run-out
 * tokens and other customers' consents are refused.
 */
describe("Open Banking: the customer's own consents", () => {
  let t: TestPlatform;
  let base: string;
  let ob: OpenBankingSeeds;
  let bank: PaymentBank;
  let alice: Customer;
  let bob: Customer;
  let tpp: { tppId: string; tppAccessToken: string };

  const signIn = (customer: Pick<Customer, 'alias' | 'otp'>, bankHandle = bank.handle) =>
    call(base, 'POST', '/ob/my-consents/session', {
      body: { bank_handle: bankHandle, customer: { type: 'alias', value: customer.alias }, otp: customer.otp },
    });
  const list = (token: string) => call(base, 'GET', `/ob/my-consents/consents?token=${encodeURIComponent(token)}`);
  const revoke = (consentId: string, token: string) =>
    call(base, 'POST', `/ob/my-consents/consents/${consentId}/revoke`, { body: { token } });
  const consentRow = (id: string) => t.platform.db.knex('open_banking.consents').where({ id }).first();

  /** A VRP consent created by the TPP, approved by `payer` at the consent page, its code exchanged. */
  const vrpGrant = async (payer: Customer, creditorIban: string) => {
    const verifier = randomBytes(32).toString('base64url');
    const created = await call(base, 'POST', '/ob/vrp-consents', {
      headers: bearer(tpp.tppAccessToken),
      body: {
        bank_handle: bank.handle,
        creditor: { type: 'iban', value: creditorIban },
        currency: 'LYD',
        reference: 'Sweeping to savings',
        control_parameters: {
          maximum_individual_amount: 5_000,
          periodic_limits: [{ period_type: 'Day', period_alignment: 'Calendar', amount: 8_000 }],
        },
        redirect_uri: OB_REDIRECT,
        state: 'st-my',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      },
    });
    expect(created.status).toBe(201);
    const consentId = created.body.consent_id as string;
    const approved = await call(base, 'POST', `/ob/auth/${consentId}/approve`, {
      body: { customer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    expect(approved.status).toBe(200);
    const token = await call(base, 'POST', '/ob/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: new URL(approved.body.redirect_to as string).searchParams.get('code')!,
        redirect_uri: OB_REDIRECT,
        consent_id: consentId,
        code_verifier: verifier,
      }).toString(),
    });
    expect(token.status).toBe(200);
    return { consentId, headers: { authorization: `Bearer ${token.body.access_token}`, 'x-consent-id': consentId } };
  };

  const ids = (answer: Answer) => (answer.body.consents as Array<{ id: string }>).map((consent) => consent.id).sort();

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
    ob = await openBankingSeeds(t);
    bank = await ob.bank();
    alice = await bank.customer();
    bob = await bank.customer();
    tpp = await t.seed.registerTpp({ name: 'Budget App' });
  });
  afterAll(async () => {
    await bank?.sandbox.stop();
    await t?.stop();
  });

  it('signs in with alias and OTP, lists her two consents and not another customer’s, and revokes one: REVOKED by the customer, its token dead', async () => {
    const access = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }]);
    const vrp = await vrpGrant(alice, bob.iban);
    const bobs = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: bob.iban, bankHandle: bank.handle }]);

    const session = await signIn(alice);
    expect(session.status).toBe(200);
    expect(responseSchemaOf('POST', '/ob/my-consents/session').safeParse(session.body).error).toBeUndefined();
    expect(session.body.token).toMatch(/^ccs_/);
    expect(session.body.token).not.toContain(alice.otp);
    expect(ids(session)).toEqual([access.consentId, vrp.consentId].sort());
    const shown = Object.fromEntries(
      (session.body.consents as Array<Record<string, any>>).map((consent) => [consent.id, consent]),
    );
    expect(shown[access.consentId]).toMatchObject({
      tpp_name: 'Budget App',
      kind: 'accounts',
      status: 'AUTHORISED',
      vrp: null,
    });
    expect(shown[vrp.consentId]).toMatchObject({
      kind: 'vrp',
      vrp: { creditor: { type: 'iban', value: bob.iban }, currency: 'LYD', maximum_individual_amount: 5_000 },
    });

    const listed = await list(session.body.token);
    expect(listed.status).toBe(200);
    expect(responseSchemaOf('GET', '/ob/my-consents/consents').safeParse(listed.body).error).toBeUndefined();
    expect(ids(listed)).toEqual(ids(session));

    // Another customer's consent: as unknown as a made-up one, and untouched.
    expectError(await revoke(bobs.consentId, session.body.token), 404, 'CONSENT_NOT_FOUND');
    expect((await consentRow(bobs.consentId)).status).toBe('AUTHORISED');

    expect((await call(base, 'GET', '/ob/vrp-consents/' + vrp.consentId, { headers: vrp.headers })).status).toBe(200);
    const revoked = await revoke(vrp.consentId, session.body.token);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ consent_id: vrp.consentId, status: 'REVOKED' });
    expect(await consentRow(vrp.consentId)).toMatchObject({ status: 'REVOKED', revoked_by: 'customer' });
    expectError(
      await call(base, 'GET', '/ob/vrp-consents/' + vrp.consentId, { headers: vrp.headers }),
      401,
      'TOKEN_REVOKED',
    );
    // Revoking again answers the same; the list no longer shows it.
    expect((await revoke(vrp.consentId, session.body.token)).status).toBe(200);
    expect(ids(await list(session.body.token))).toEqual([access.consentId]);
    // The other consent still works.
    expect((await call(base, 'GET', '/ob/accounts', { headers: access.headers() })).status).toBe(200);

    // Bob sees his own only.
    const his = await signIn(bob);
    expect(ids(his)).toEqual([bobs.consentId]);
  });

  it('refuses a wrong OTP (401 OTP_INVALID, nothing listed) and an alias at another bank', async () => {
    const wrong = await signIn({ alias: alice.alias, otp: alice.otp === '123456' ? '654321' : '123456' });
    expectError(wrong, 401, 'OTP_INVALID');
    expect(wrong.body.consents).toBeUndefined();
    expect(wrong.body.token).toBeUndefined();
    expectError(
      await call(base, 'POST', '/ob/my-consents/session', {
        body: { bank_handle: bank.handle, customer: { type: 'alias', value: alice.alias }, otp: 'abc' },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('refuses a forged, altered or run-out token with 401 UNAUTHORIZED', async () => {
    const session = await signIn(alice);
    expect(session.status).toBe(200);
    const token = session.body.token as string;
    const [, expiry, payload, mac] = /^ccs_(\d+)_(.+)_([0-9a-f]{64})$/.exec(token)!;
    const forged = Buffer.from(JSON.stringify([bank.handle, bob.customerRef])).toString('base64url');
    for (const bad of [
      `ccs_${expiry}_${forged}_${mac}`,
      `ccs_${Number(expiry) + 3600}_${payload}_${mac}`,
      `ccs_${Math.floor(Date.now() / 1000) - 60}_${payload}_${'0'.repeat(64)}`,
      'ccs_nope',
    ]) {
      expectError(await list(bad), 401, 'UNAUTHORIZED');
      expectError(await revoke('con_unknown', bad), 401, 'UNAUTHORIZED');
    }
  });

  it('serves the page without script: sign in, list, revoke, each a form answered 303', async () => {
    const grant = await ob.grant(tpp.tppAccessToken, bank.handle, [{ iban: alice.iban, bankHandle: bank.handle }]);
    const page = await fetch(`${base}/ob/my-consents?bank=${bank.handle}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'nonce-");
    const html = await page.text();
    expect(html).toContain(`value="${bank.handle}"`);
    expect(html).toContain('action="/ob/my-consents/session"');

    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      redirect: 'manual' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    const wrong = await fetch(
      `${base}/ob/my-consents/session`,
      form({ bank_handle: bank.handle, customer_type: 'alias', customer_value: alice.alias, otp: '000000' }),
    );
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get('location')).toBe('/ob/my-consents?error=OTP_INVALID');

    const signedIn = await fetch(
      `${base}/ob/my-consents/session`,
      form({ bank_handle: bank.handle, customer_type: 'alias', customer_value: alice.alias, otp: alice.otp }),
    );
    expect(signedIn.status).toBe(303);
    const location = signedIn.headers.get('location')!;
    expect(location).toMatch(/^\/ob\/my-consents\?token=ccs_/);
    const listPage = await (await fetch(`${base}${location}`, { headers: { accept: 'text/html' } })).text();
    expect(listPage).toContain(`data-consent-id="${grant.consentId}"`);
    expect(listPage).toContain('See the balances of your accounts');

    const token = new URL(location, base).searchParams.get('token')!;
    const revoked = await fetch(`${base}/ob/my-consents/consents/${grant.consentId}/revoke`, form({ token }));
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toContain(`revoked=${grant.consentId}`);
    expect(await consentRow(grant.consentId)).toMatchObject({ status: 'REVOKED', revoked_by: 'customer' });
    const after = await (
      await fetch(`${base}${revoked.headers.get('location')!}`, { headers: { accept: 'text/html' } })
    ).text();
    expect(after).toContain('id="revoked"');
    expect(after).not.toContain(`data-consent-id="${grant.consentId}"`);
  });
});
