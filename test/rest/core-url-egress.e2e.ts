import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TEST_OTP } from '@gateway/bank-sandbox';
import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { newSecret } from '@gateway/kernel';
import { bearer } from '../support/payments';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';

const PRIVATE = 'must point to a public address (not loopback, private, link-local or reserved)';
const METADATA = 'http://169.254.169.254/latest/meta-data';

/** A loopback receiver posing as a sandbox core: it records every connection and request, and refuses every OTP. */
interface Receiver {
  url: string;
  connections: number;
  requests: Array<{ method: string; path: string; key: string | undefined }>;
  stop(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver = { connections: 0, requests: [] as Receiver['requests'] };
  const server: Server = createServer((request: IncomingMessage, response) => {
    receiver.requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      key: request.headers['x-service-internal-key'] as string | undefined,
    });
    request.resume();
    response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"OTP_INVALID"}}');
  });
  server.on('connection', () => (receiver.connections += 1));
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/core`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

/**
 * Issue 46, finding 1: a bank key aimed the gateway's core calls anywhere. `PATCH /banks/oasis`
 * with `{"sandbox_core_base_url":"http://169.254.169.254/latest/meta-data"}` was accepted, and a
 * sandbox core set to a loopback receiver got `POST /core/customers/verify` with the sandbox
 * internal key from a test payment by `success@oasis`. Now core_base_url and
 * sandbox_core_base_url go through the egress check of webhooks at registration and at every
 * change, and the bank-core client connects through the guarded lookup: private networks only
 * with PRIVATE_TARGETS, cloud metadata never.
 */
describe('bank core URLs under the egress policy (PRIVATE_TARGETS)', () => {
  let db: Database;
  let receiver: Receiver;
  /** Both platforms on the database open its sealed keys: one platform secret. */
  const platformSecret = newSecret('pls_');
  /** Registered while PRIVATE_TARGETS was on: a bank whose sandbox core is the loopback receiver. */
  let bank: { handle: string; bankKey: string; sandboxKey: string };
  let merchant: { apiKey: string };

  beforeAll(async () => {
    db = await openTestDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
    await db.close();
  });

  it('production: a live core_base_url at https://10.0.0.5 is refused; https to a public name is registered', async () => {
    // A database of its own: production mode opens no key sealed by the other platforms.
    const productionDb = await openTestDatabase();
    const t = await startTestPlatform({
      db: productionDb,
      env: {
        NODE_ENV: 'production',
        PRIVATE_TARGETS: '0',
        ADMIN_KEY: newSecret('adm_'),
        PLATFORM_SECRET: newSecret('pls_'),
        // The test's database is handed over; the URL is only what production mode asks for.
        DATABASE_URL: 'postgresql://unused@127.0.0.1:1/unused',
        METRICS_TOKEN: newSecret('mtk_'),
        PUBLIC_BASE_URL: 'https://pay.example.ly',
      },
    });
    try {
      const register = (core_base_url: string) =>
        t.rest('POST', '/banks', {
          headers: { 'x-service-admin-key': t.adminKey },
          body: {
            bank_handle: 'prodbank',
            display_name: 'Prod Bank',
            country: 'LY',
            core_base_url,
            settlement_account_iban: lyIban('792', 1),
            contact_email: 'ops@prod.example',
            institution_code: '792',
          },
        });
      for (const url of ['https://10.0.0.5', 'https://10.0.0.5:8443/core', 'https://169.254.169.254/']) {
        const refused = await register(url);
        expect([refused.status, refused.body.error.code, refused.body.error.detail]).toEqual([
          400,
          'VALIDATION_ERROR',
          `core_base_url: ${PRIVATE}`,
        ]);
      }
      expect((await register('https://core.prod.example')).status).toBe(201);
    } finally {
      await t.stop();
      await productionDb.close();
    }
  });

  const testPayment = async (t: TestPlatform) => {
    const payee = await t.seed.claimAlias(await t.seed.registerBank({ core_base_url: 'http://core.payee.example' }));
    const created = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: payee.handle } },
    });
    expect(created.status).toBe(201);
    const authorize = await t.rest('POST', `/pay/${created.body.session_id}/authorize`, {
      body: { payer: { type: 'alias', value: `success@${bank.handle}` }, otp: TEST_OTP },
    });
    const status = (
      await t.rest('GET', `/payments/sessions/${created.body.session_id}`, { headers: bearer(merchant.apiKey) })
    ).body.status;
    return { authorize, status };
  };

  it('with PRIVATE_TARGETS on (npm start, the tests): a sandbox core on loopback is accepted and called; cloud metadata never', async () => {
    const t = await startTestPlatform({ db, env: { PLATFORM_SECRET: platformSecret } });
    try {
      const seeded = await t.seed.registerBank();
      const patch = (body: Record<string, unknown>) =>
        t.rest('PATCH', `/banks/${seeded.handle}`, { headers: { 'x-service-bank-key': seeded.bankKey }, body });
      const sandboxKey = newSecret('sik_test_');
      const metadata = await patch({ sandbox_core_base_url: METADATA, sandbox_internal_key: sandboxKey });
      expect([metadata.status, metadata.body.error.code, metadata.body.error.detail]).toEqual([
        400,
        'VALIDATION_ERROR',
        `sandbox_core_base_url: ${PRIVATE}`,
      ]);
      expect((await patch({ sandbox_core_base_url: receiver.url, sandbox_internal_key: sandboxKey })).status).toBe(200);
      bank = { handle: seeded.handle, bankKey: seeded.bankKey, sandboxKey };
      merchant = await t.seed.createMerchant({ name: 'Egress Shop', mode: 'test' });

      const { authorize } = await testPayment(t);
      expect(authorize.status).toBe(401);
      expect(receiver.requests).toContainEqual({ method: 'POST', path: '/core/customers/verify', key: sandboxKey });
    } finally {
      await t.stop();
    }
  });

  describe('with PRIVATE_TARGETS off (the default)', () => {
    let t: TestPlatform;
    beforeAll(async () => {
      t = await startTestPlatform({ db, env: { PLATFORM_SECRET: platformSecret, PRIVATE_TARGETS: '0' } });
    });
    afterAll(async () => {
      await t?.stop();
    });

    it('PATCH /banks/{handle} with the metadata address, loopback or a private network is 400 naming the field; nothing changes', async () => {
      const oasis = await t.seed.registerBank({ core_base_url: 'https://core.oasis.example' });
      const patch = (body: Record<string, unknown>) =>
        t.rest('PATCH', `/banks/${oasis.handle}`, { headers: { 'x-service-bank-key': oasis.bankKey }, body });
      for (const url of [
        METADATA,
        receiver.url,
        'http://localhost:7001',
        'https://10.0.0.5',
        'http://[fd00:ec2::254]/',
      ]) {
        const refused = await patch({ sandbox_core_base_url: url, sandbox_internal_key: newSecret('sik_test_') });
        expect([refused.status, refused.body.error.code, refused.body.error.detail]).toEqual([
          400,
          'VALIDATION_ERROR',
          `sandbox_core_base_url: ${PRIVATE}`,
        ]);
      }
      const record = await t.rest('GET', `/banks/${oasis.handle}`, {
        headers: { 'x-service-bank-key': oasis.bankKey },
      });
      expect(record.body.sandbox_core_base_url).toBeNull();
      // A public name passes (it is judged on what it resolves to, at every connection).
      const moved = await patch({
        sandbox_core_base_url: 'https://sandbox.oasis.example/core',
        sandbox_internal_key: newSecret('sik_test_'),
      });
      expect(moved.status).toBe(200);
    });

    it('POST /banks refuses a core_base_url or sandbox_core_base_url on loopback, a private network or cloud metadata', async () => {
      const base = {
        display_name: 'Private Bank',
        country: 'LY',
        contact_email: 'ops@private.example',
        settlement_account_iban: lyIban('791', 1),
        institution_code: '791',
        bank_handle: 'privatebank',
      };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ core_base_url: 'http://127.0.0.1:9' }, 'core_base_url'],
        [{ core_base_url: 'http://10.0.0.5' }, 'core_base_url'],
        [{ core_base_url: METADATA }, 'core_base_url'],
        [
          { core_base_url: 'https://core.private.example', sandbox_core_base_url: receiver.url },
          'sandbox_core_base_url',
        ],
      ];
      for (const [patch, field] of cases) {
        const refused = await t.rest('POST', '/banks', {
          headers: { 'x-service-admin-key': t.adminKey },
          body: { ...base, ...patch },
        });
        expect([refused.status, refused.body.error.code, refused.body.error.detail]).toEqual([
          400,
          'VALIDATION_ERROR',
          `${field}: ${PRIVATE}`,
        ]);
      }
    });

    it('a sandbox core registered on loopback earlier is never connected to: the test payment fails as with an unreachable core, nothing moves', async () => {
      const before = { connections: receiver.connections, requests: receiver.requests.length };
      const { authorize, status } = await testPayment(t);
      expect(authorize.status).toBe(503);
      expect(authorize.body.error.code).toBe('CBS_TIMEOUT');
      expect(authorize.body.error.detail ?? '').not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
      expect(status).toBe('PENDING');
      expect({ connections: receiver.connections, requests: receiver.requests.length }).toEqual(before);
    });
  });
});
