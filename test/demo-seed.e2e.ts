import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@gateway/kernel';
import { startDemo } from '@gateway/platform';
import { startTestPlatform, type TestPlatform } from './support/platform';

/**
 * The demo seed is resumable: a start stopped after the first bank registered finishes the seed
 * on the next start (it used to die on 409 BANK_ALREADY_REGISTERED), with the keys saved by the
 * first one; /readyz answers 503 until the seed is done.
 */
describe('demo seed', () => {
  let test: TestPlatform;
  const logger = createLogger('demo-seed', 'silent');
  beforeAll(async () => {
    // Sandbox banks on, every port picked by the OS.
    test = await startTestPlatform({ env: { SANDBOX_BANKS: 'on', SANDBOX_PORT_BASE: '0' } });
  });
  afterAll(() => test?.stop());

  const readyz = async () => {
    const response = await test.rest('GET', '/readyz');
    return { status: response.status, checks: response.body?.checks };
  };

  it('resumes a seed stopped halfway, with the keys saved before the stop, and is ready only once done', async () => {
    expect(await readyz()).toEqual({ status: 503, checks: { router: false } });
    const router = await fetch(`${test.platform.routerUrl}/readyz`);
    expect(router.status).toBe(503);
    expect(((await router.json()) as any).checks).toMatchObject({ database: true, demo: false });

    // A start stopped right after the first bank registered.
    const stop = new AbortController();
    const steps: string[] = [];
    await expect(
      startDemo(test.platform, {
        portBase: 0,
        logger,
        signal: stop.signal,
        onStep: (step) => {
          steps.push(step);
          if (step === 'bank oasis') stop.abort();
        },
      }),
    ).rejects.toThrow();
    expect(steps).toEqual(['bank oasis']);
    const file = join(test.platform.config.dataDir, 'demo.json');
    const partial = JSON.parse(readFileSync(file, 'utf8'));
    expect(partial.seed_complete).toBe(false);
    expect(partial.banks).toHaveLength(1);
    expect(partial.banks[0].bank_key).toMatch(/^sbk_oasis_/);
    expect((await readyz()).status).toBe(503);

    // The next start finishes it.
    const demo = await startDemo(test.platform, { portBase: 0, logger });
    try {
      expect(demo.reused).toBe(false);
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      expect(saved.seed_complete).toBe(true);
      expect(saved.banks.map((b: any) => b.bank_handle)).toEqual(['oasis', 'atlas']);
      expect(saved.banks[0].bank_key).toBe(partial.banks[0].bank_key);
      expect(saved.banks[0].internal_key).toBe(partial.banks[0].internal_key);
      expect(
        (await test.rest('GET', '/banks/oasis', { headers: { 'x-service-bank-key': saved.banks[0].bank_key } })).status,
      ).toBe(200);
      for (const customer of saved.customers) {
        const resolved = await test.rest('GET', `/v1/identity/resolve?alias=${customer.alias}`);
        expect(resolved.body).toMatchObject({ iban: customer.iban, bank_handle: customer.bank_handle });
      }
      expect(
        (
          await test.rest('GET', `/merchants/${saved.merchant.merchant_id}`, {
            headers: { authorization: `Bearer ${saved.merchant.api_key}` },
          })
        ).status,
      ).toBe(200);
      // The fapi2 TPP: registered with the public half of the key saved here.
      expect(saved.fapi2_tpp).toMatchObject({ tpp_id: expect.stringMatching(/^tpp_/), kid: expect.any(String) });
      expect(saved.fapi2_tpp.private_jwk).toMatchObject({ kty: 'EC', crv: 'P-256', d: expect.any(String) });
      const fapi2 = await test.rest('GET', `/ob/tpps/${saved.fapi2_tpp.tpp_id}`, {
        headers: { 'x-service-admin-key': test.platform.adminKey },
      });
      expect(fapi2.body).toMatchObject({ security_profile: 'fapi2', mode: 'live' });
      const { d: _private, alg: _alg, ...publicJwk } = saved.fapi2_tpp.private_jwk;
      expect(fapi2.body.jwks.keys).toEqual([{ ...publicJwk, alg: 'ES256', use: 'sig' }]);
      expect(await readyz()).toEqual({ status: 200, checks: { router: true } });
    } finally {
      await demo.stop();
    }

    // And a start after a complete seed registers nothing.
    const again = await startDemo(test.platform, { portBase: 0, logger });
    try {
      expect(again.reused).toBe(true);
      expect(again.file.merchant).toEqual(demo.file.merchant);
      expect(again.file.tpp).toEqual(demo.file.tpp);
      expect(again.file.fapi2_tpp).toEqual(demo.file.fapi2_tpp);
    } finally {
      await again.stop();
    }

    // A demo.json from before the fapi2 TPP: the next start adds one and keeps the rest.
    const { fapi2_tpp: _dropped, ...older } = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify(older));
    const added = await startDemo(test.platform, { portBase: 0, logger });
    try {
      expect(added.file.tpp).toEqual(demo.file.tpp);
      expect(added.file.fapi2_tpp?.tpp_id).toMatch(/^tpp_/);
      expect(added.file.fapi2_tpp?.tpp_id).not.toBe(demo.file.fapi2_tpp?.tpp_id);
      expect(JSON.parse(readFileSync(file, 'utf8')).fapi2_tpp).toEqual(added.file.fapi2_tpp);
    } finally {
      await added.stop();
    }

    // A Demo Shop seeded by a release before mandates has no settlement_iban: the next start gives
    // it the shop's account, so the README's mandate steps work on an old .data/ too.
    const admin = { 'x-service-admin-key': test.platform.adminKey };
    const merchantPath = `/merchants/${demo.file.merchant.merchant_id}`;
    const iban = (await test.rest('GET', merchantPath, { headers: admin })).body.settlement_iban;
    expect(iban).toEqual(expect.any(String));
    await test.platform.db
      .knex('payments.merchants')
      .where({ id: demo.file.merchant.merchant_id })
      .update({ settlement_iban: null });
    expect((await test.rest('GET', merchantPath, { headers: admin })).body.settlement_iban).toBeNull();
    const upgraded = await startDemo(test.platform, { portBase: 0, logger });
    try {
      expect(upgraded.file.merchant).toEqual(demo.file.merchant);
      expect((await test.rest('GET', merchantPath, { headers: admin })).body.settlement_iban).toBe(iban);
    } finally {
      await upgraded.stop();
    }
  }, 120_000);
});
