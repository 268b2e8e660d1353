import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { EventBus, PlatformEvent } from '@gateway/events';
import { testBus } from '@gateway/events/testing';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { sha256Hex, type Principal } from '@gateway/kernel';
import { openVaultOrm, vault } from '@gateway/vault';
import { composeIBAN } from 'ibantools';
import { start } from '../service';
import { BANK_INTERNAL_KEY_ROTATED } from './bank-credential.events';

const GRACE_SECONDS = 120;
const operator: Principal = { kind: 'admin', id: 'adk_ops', name: 'alice', ip: '10.0.0.7' };
const service: Principal = { kind: 'service', id: 'payments' };

const REGISTER = `mutation($input: RegisterBankInput!) { registerBank(input: $input) { bankKey internalKey sandboxInternalKey } }`;
const REVOKE = `mutation($handle: String!) { revokeBankKey(handle: $handle) { bankHandle revokedKeys } }`;
const ROTATE_KEY = `mutation($handle: String!) { rotateBankKey(handle: $handle) { bankKey } }`;
const ROTATE_INTERNAL = `mutation($handle: String!) { rotateInternalKey(handle: $handle) { internalKey previousKeyExpiresAt } }`;
const ROUTING = `query($handle: String) { bankRouting(handle: $handle) { internalKey sandboxInternalKey } }`;

let institution = 600;

describe('banks subgraph: containment of leaked bank credentials', () => {
  let db: Database;
  let bus: EventBus;
  let banks: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  const events: PlatformEvent[] = [];
  const verify = async (kind: 'bank_key' | 'internal_key', raw: string, at?: Date) =>
    vault.verify((await openVaultOrm(db)).em.fork(), kind, raw, at);
  const audited = (action: string, target: string) => db.knex('audit.entries').where({ action, target }).orderBy('at');

  const register = async (patch: Record<string, unknown> = {}) => {
    const code = String(institution++);
    const handle = `cred${code}`;
    const input = {
      bankHandle: handle,
      displayName: `Bank ${handle}`,
      country: 'LY',
      coreBaseUrl: 'http://127.0.0.1:7001',
      settlementAccountIban: composeIBAN({ countryCode: 'LY', bban: `${code}001${'1'.padStart(15, '0')}` })!,
      contactEmail: 'ops@example.ly',
      institutionCode: code,
      ...patch,
    };
    return { handle, ...(await client.execute(REGISTER, { input }, operator)).registerBank };
  };

  beforeAll(async () => {
    db = await openTestDatabase();
    bus = testBus();
    await bus.subscribe('bank.*', async (event) => void events.push(event));
    banks = await start({
      db,
      bus,
      platformSecret: TEST_PLATFORM_SECRET,
      production: false,
      // Its banks' cores are on loopback (PRIVATE_TARGETS on).
      privateTargets: true,
      internalKeyGraceSeconds: GRACE_SECONDS,
    });
    client = subgraphClient(banks.graphqlUrl, TEST_PLATFORM_SECRET);
  });
  afterAll(async () => {
    await banks.stop();
    await bus.close();
    await db.close();
  });

  describe('revokeBankKey', () => {
    it("revokes the bank's key at once and records bank.key_revoked with the operator's name", async () => {
      const bank = await register();
      const { revokeBankKey } = await client.execute(REVOKE, { handle: bank.handle }, operator);
      expect(revokeBankKey).toEqual({ bankHandle: bank.handle, revokedKeys: 1 });
      expect(await verify('bank_key', bank.bankKey)).toMatchObject({ ok: false, reason: 'revoked' });
      const [entry] = await audited('bank.key_revoked', bank.handle);
      expect(entry).toMatchObject({
        actor_kind: 'admin',
        actor_id: 'adk_ops',
        actor_name: 'alice',
        ip: '10.0.0.7',
        changes: { bank_key: { from: '[secret]', to: null } },
      });
      // Revoking again finds nothing live: still an operator's action on record.
      expect((await client.execute(REVOKE, { handle: bank.handle }, operator)).revokeBankKey.revokedKeys).toBe(0);
      const entries = await audited('bank.key_revoked', bank.handle);
      expect(entries.map((entry) => entry.changes)).toEqual([{ bank_key: { from: '[secret]', to: null } }, {}]);
    });

    it('then the operator gives the bank a new key (rotateBankKey as admin), recorded as bank.key_rotated', async () => {
      const bank = await register();
      await client.execute(REVOKE, { handle: bank.handle }, operator);
      const { bankKey } = (await client.execute(ROTATE_KEY, { handle: bank.handle }, operator)).rotateBankKey;
      expect(bankKey).toMatch(new RegExp(`^sbk_${bank.handle}_`));
      expect((await verify('bank_key', bankKey)).ok).toBe(true);
      expect(await audited('bank.key_rotated', bank.handle)).toMatchObject([{ actor_name: 'alice' }]);
      expect(JSON.stringify(await db.knex('audit.entries'))).not.toContain(bankKey);
    });

    it('is for operators only; an unknown bank is BANK_NOT_REGISTERED', async () => {
      const bank = await register();
      expect(await client.errorCode(REVOKE, { handle: bank.handle }, { kind: 'bank', id: bank.handle })).toBe(
        'FORBIDDEN',
      );
      expect(await client.errorCode(REVOKE, { handle: bank.handle })).toBe('UNAUTHORIZED');
      expect(await client.errorCode(REVOKE, { handle: 'nosuchbank' }, operator)).toBe('BANK_NOT_REGISTERED');
      expect((await verify('bank_key', bank.bankKey)).ok).toBe(true);
    });

    it('two bank key rotations racing leave exactly one valid key', async () => {
      const bank = await register();
      const own: Principal = { kind: 'bank', id: bank.handle };
      const keys = await Promise.all(
        [own, operator].map(async (principal) => {
          const answer = await client.execute(ROTATE_KEY, { handle: bank.handle }, principal);
          return answer.rotateBankKey.bankKey as string;
        }),
      );
      const valid = await Promise.all(keys.map(async (key) => (await verify('bank_key', key)).ok));
      expect(valid.filter(Boolean)).toHaveLength(1);
      const live = await db
        .knex('auth.credentials')
        .where({ owner_id: bank.handle, kind: 'bank_key' })
        .whereNull('revoked_at');
      expect(live).toHaveLength(1);
    });
  });

  describe('rotateInternalKey', () => {
    it('issues a new key the routing hands out at once; the old one is accepted on callbacks for the grace period only', async () => {
      const bank = await register();
      const before = Date.now();
      const { rotateInternalKey } = await client.execute(
        ROTATE_INTERNAL,
        { handle: bank.handle },
        { kind: 'bank', id: bank.handle },
      );
      const { internalKey, previousKeyExpiresAt } = rotateInternalKey;
      expect(internalKey).toMatch(/^sik_/);
      expect(internalKey).not.toBe(bank.internalKey);
      const until = Date.parse(previousKeyExpiresAt);
      expect(until).toBeGreaterThanOrEqual(before + GRACE_SECONDS * 1000);
      expect(until).toBeLessThanOrEqual(Date.now() + GRACE_SECONDS * 1000);
      // The gateway's side: the sealed key it presents to the core is the new one.
      expect((await client.execute(ROUTING, { handle: bank.handle }, service)).bankRouting.internalKey).toBe(
        internalKey,
      );
      // The core's side: both keys are accepted now; the old one not after the grace period.
      expect((await verify('internal_key', internalKey)).ok).toBe(true);
      expect((await verify('internal_key', bank.internalKey)).ok).toBe(true);
      expect(await verify('internal_key', bank.internalKey, new Date(until + 1))).toMatchObject({
        ok: false,
        reason: 'expired',
      });
      expect((await verify('internal_key', internalKey, new Date(until + 1))).ok).toBe(true);
      const [row] = await db.knex('auth.credentials').where({ hash: sha256Hex(internalKey) });
      expect(row).toMatchObject({ kind: 'internal_key', owner_id: bank.handle, expires_at: null });
    });

    it('records bank.internal_key_rotated (no secret) and tells the bus, so routing caches drop the bank', async () => {
      const bank = await register();
      const { internalKey } = (await client.execute(ROTATE_INTERNAL, { handle: bank.handle }, operator))
        .rotateInternalKey;
      const [entry] = await audited('bank.internal_key_rotated', bank.handle);
      expect(entry).toMatchObject({ actor_kind: 'admin', actor_name: 'alice', ip: '10.0.0.7' });
      expect(entry.changes).toEqual({
        internal_key: { from: '[secret]', to: '[secret]' },
        previous_key_expires_at: { to: expect.any(String) },
      });
      const log = JSON.stringify(await db.knex('audit.entries'));
      expect(log).not.toContain(internalKey);
      expect(log).not.toContain(bank.internalKey);
      await waitFor(() => events.some((event) => event.aggregateId === bank.handle));
      const event = events.find((candidate) => candidate.aggregateId === bank.handle)!;
      expect(event).toMatchObject({ kind: BANK_INTERNAL_KEY_ROTATED, aggregateType: 'bank' });
      expect(event.data).toMatchObject({ bank_handle: bank.handle });
      expect(JSON.stringify(event)).not.toContain('sik_');
    });

    it("leaves the sandbox core's key alone", async () => {
      const sandboxKey = `sik_test_${String(institution)}_sandbox_key_0123456789`;
      const bank = await register({ sandboxCoreBaseUrl: 'http://127.0.0.1:7002', sandboxInternalKey: sandboxKey });
      await client.execute(ROTATE_INTERNAL, { handle: bank.handle }, operator);
      const [row] = await db.knex('auth.credentials').where({ hash: sha256Hex(sandboxKey) });
      expect(row).toMatchObject({ expires_at: null, revoked_at: null });
      expect((await verify('internal_key', sandboxKey, new Date(Date.now() + 10 * GRACE_SECONDS * 1000))).ok).toBe(
        true,
      );
      const routing = (await client.execute(ROUTING, { handle: bank.handle }, service)).bankRouting;
      expect(routing.sandboxInternalKey).toBe(sandboxKey);
    });

    it('two rotations racing leave exactly one current key, and it is the one the gateway presents', async () => {
      const bank = await register();
      const rotations = await Promise.all(
        [{ kind: 'bank', id: bank.handle } as Principal, operator].map(
          async (principal) =>
            (await client.execute(ROTATE_INTERNAL, { handle: bank.handle }, principal)).rotateInternalKey
              .internalKey as string,
        ),
      );
      const current = await db
        .knex('auth.credentials')
        .where({ owner_id: bank.handle, kind: 'internal_key' })
        .whereNull('revoked_at')
        .whereNull('expires_at');
      expect(current).toHaveLength(1);
      const presented = (await client.execute(ROUTING, { handle: bank.handle }, service)).bankRouting.internalKey;
      expect(rotations).toContain(presented);
      expect(current[0].hash).toBe(sha256Hex(presented));
    });

    it('only the bank itself or an operator: another bank is FORBIDDEN, nobody is INVALID_BANK_KEY', async () => {
      const bank = await register();
      expect(await client.errorCode(ROTATE_INTERNAL, { handle: bank.handle }, { kind: 'bank', id: 'other' })).toBe(
        'FORBIDDEN',
      );
      expect(await client.errorCode(ROTATE_INTERNAL, { handle: bank.handle })).toBe('INVALID_BANK_KEY');
      expect(await client.errorCode(ROTATE_INTERNAL, { handle: bank.handle }, { kind: 'merchant', id: 'mer_1' })).toBe(
        'FORBIDDEN',
      );
      expect((await client.execute(ROUTING, { handle: bank.handle }, service)).bankRouting.internalKey).toBe(
        bank.internalKey,
      );
    });
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
