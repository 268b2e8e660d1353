import { createLogger } from '@gateway/kernel';
import { startDemo } from '@gateway/platform';
import { NoFapi2TppError, runFapi2Walkthrough } from '../../scripts/open-banking-fapi2';
import { runOpenBankingWalkthrough } from '../../scripts/open-banking-walkthrough';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * `npm run demo:open-banking` as a new user runs it against `npm start`: the seeded demo TPP and
 * customers only; the consent approved in Chromium, data read, a refresh, a DELETE; then a payment
 * order below the SCA limit (201) and one above it (202, SCA in Chromium), followed by a
 * subscription and reported by verified webhooks.
 */
describe('Open Banking walkthrough on the demo data', () => {
  let t: TestPlatform;
  let demo: Awaited<ReturnType<typeof startDemo>>;

  beforeAll(async () => {
    t = await startTestPlatform({ env: { SANDBOX_BANKS: 'on', SANDBOX_PORT_BASE: '0' } });
    demo = await startDemo(t.platform, { portBase: 0, logger: createLogger('walkthrough', 'silent') });
  });
  afterAll(async () => {
    await demo?.stop();
    await t?.stop();
  });

  it('goes from consent to data to revocation, then pays below and above the SCA limit and by VRP within its limits, with the demo TPP and customers', async () => {
    const lines: string[] = [];
    const result = await runOpenBankingWalkthrough({ demo: demo.file, log: (line) => lines.push(line) });

    const customer = demo.file.customers[0]!;
    expect(result.accounts).toEqual([
      expect.objectContaining({ iban: customer.iban, currency: 'LYD', account_type: 'CURRENT' }),
    ]);
    expect(result.balances).toMatchObject({
      balances: [{ type: 'AVAILABLE', amount: customer.balance, currency: 'LYD' }],
    });
    expect(result.transactions).toHaveProperty('transactions');
    expect(result.refusals).toEqual({
      'rotated access token': { status: 401, code: 'TOKEN_REVOKED' },
      'access token after DELETE': { status: 401, code: 'TOKEN_REVOKED' },
      'refresh token after DELETE': { status: 401, code: 'CONSENT_REVOKED' },
    });
    const [small, large] = result.orders;
    expect(small).toMatchObject({ created: 201, status: 'COMPLETED' });
    expect(large).toMatchObject({ created: 202, status: 'COMPLETED' });
    expect(result.subscribed[0]).toBe('PENDING_SCA');
    expect(result.subscribed.at(-1)).toBe('COMPLETED');
    expect(new Set(result.subscribed).size).toBe(result.subscribed.length);
    expect(result.webhooks).toEqual(
      expect.arrayContaining([
        { event: 'consent.granted', id: expect.stringMatching(/^con_/) },
        { event: 'payment_order.completed', id: small!.id },
        { event: 'payment_order.pending_sca', id: large!.id },
        { event: 'payment_order.completed', id: large!.id },
      ]),
    );
    // Money moved: the payer paid both orders.
    const payer = demo.file.customers[0]!;
    const balance = await fetch(`${demo.banks[0]!.url}/accounts/${payer.iban}`, {
      headers: { 'x-service-internal-key': demo.file.banks[0]!.internal_key },
    });
    expect(((await balance.json()) as { balance: number }).balance).toBe(payer.balance - 2_500 - 150_000);
    // Variable recurring payments: approved in Chromium, paid within the limits, refused beyond, revoked.
    expect(result.vrp.payments).toEqual([
      expect.objectContaining({ amount: 30_000, status: 'COMPLETED' }),
      expect.objectContaining({ amount: 45_000, status: 'COMPLETED' }),
    ]);
    expect(result.vrp.refused).toEqual({ status: 422, code: 'VRP_LIMIT_EXCEEDED' });
    expect(result.vrp.usage).toEqual([
      { period_type: 'Day', used: 75_000, remaining: 5_000 },
      { period_type: 'Month', used: 75_000, remaining: 225_000 },
    ]);
    expect(result.vrp.afterRevocation).toBe(401);
    expect(lines.some((line) => line.includes('/ob/vrp-payments'))).toBe(true);
    // Each step is shown as the curl a user can paste.
    expect(lines.filter((line) => line.startsWith('\n$ curl')).length).toBeGreaterThanOrEqual(9);
  });

  it('runs at FAPI 2.0 with the seeded fapi2 TPP: PAR, approval in Chromium, DPoP-bound tokens, a refresh, Bearer refused, revocation', async () => {
    const fapi2 = demo.file.fapi2_tpp!;
    expect(fapi2.tpp_id).toMatch(/^tpp_/);
    const registered = await t.rest('GET', `/ob/tpps/${fapi2.tpp_id}`, {
      headers: { 'x-service-admin-key': t.platform.adminKey },
    });
    expect(registered.body).toMatchObject({ security_profile: 'fapi2', mode: 'live' });
    expect(registered.body.jwks.keys).toEqual([expect.objectContaining({ kid: fapi2.kid, kty: 'EC' })]);
    expect(registered.body.jwks.keys[0]).not.toHaveProperty('d');

    const lines: string[] = [];
    const result = await runFapi2Walkthrough({ demo: demo.file, log: (line) => lines.push(line) });
    expect(result.tppId).toBe(fapi2.tpp_id);
    expect(result.tokenTypes).toEqual({ clientCredentials: 'dpop', code: 'dpop', refresh: 'dpop' });
    const customer = demo.file.customers[0]!;
    expect(result.accounts).toEqual([expect.objectContaining({ iban: customer.iban, currency: 'LYD' })]);
    expect(result.balances).toMatchObject({
      balances: [expect.objectContaining({ type: 'AVAILABLE', currency: 'LYD' })],
    });
    expect(result.readAfterRefresh).toBe(200);
    expect(result.refusals).toEqual({
      'access token as Bearer': { status: 401, code: 'invalid_dpop_proof' },
      'rotated access token': { status: 401, code: 'TOKEN_REVOKED' },
      'access token after revocation': { status: 401, code: 'TOKEN_REVOKED' },
    });
    // Shown as curl, with DPoP proofs; the TPP's private key never printed.
    const printed = lines.join('\n');
    expect(printed).toMatch(/-H 'dpop: eyJ/i);
    expect(printed).toContain('/ob/par');
    expect(printed).not.toContain(fapi2.private_jwk.d);

    // A demo file from before the fapi2 TPP: told what to do.
    const { fapi2_tpp: _omitted, ...older } = demo.file;
    await expect(runFapi2Walkthrough({ demo: older, file: '.data/demo.json', log: () => undefined })).rejects.toThrow(
      NoFapi2TppError,
    );
  });
});
