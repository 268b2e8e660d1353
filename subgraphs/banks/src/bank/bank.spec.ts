import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { composeIBAN } from 'ibantools';
import { openVaultOrm, vault } from '@gateway/vault';
import type { Logger, Principal } from '@gateway/kernel';
import { start } from '../service';

const admin = { kind: 'admin' as const };
const iban = (institution: string, account: string) =>
  composeIBAN({ countryCode: 'LY', bban: `${institution}001${account.padStart(15, '0')}` })!;

const REGISTER = `mutation($input: RegisterBankInput!) {
  registerBank(input: $input) { bankKey internalKey bank { handle institutionCode status minAmount maxAmount capabilities { obEnabled maxConsentExpiryDays } } }
}`;

const bankInput = (handle: string, institutionCode: string) => ({
  bankHandle: handle,
  displayName: `Bank ${handle}`,
  country: 'LY',
  coreBaseUrl: 'http://127.0.0.1:7001',
  settlementAccountIban: iban(institutionCode, '1'),
  contactEmail: 'ops@example.ly',
  institutionCode,
});

describe('banks subgraph', () => {
  let db: Database;
  let service: RunningService;
  let client: ReturnType<typeof subgraphClient>;

  beforeAll(async () => {
    db = await openTestDatabase();
    // The cores of these banks are on loopback (PRIVATE_TARGETS on), as the tests' and the demo's sandbox banks are.
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false, privateTargets: true });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  it('registers a bank (admin) and returns its keys once', async () => {
    const { registerBank } = await client.execute(REGISTER, { input: bankInput('alpha', '101') }, admin);
    expect(registerBank.bankKey).toMatch(/^sbk_alpha_[0-9A-Za-z]{32}$/);
    expect(registerBank.internalKey).toMatch(/^sik_/);
    expect(registerBank.bank).toMatchObject({
      handle: 'alpha',
      institutionCode: '101',
      status: 'ACTIVE',
      minAmount: 1,
      capabilities: { obEnabled: false, maxConsentExpiryDays: 90 },
    });
    const stored = await db.knex('auth.credentials').where({ owner_id: 'alpha', kind: 'bank_key' });
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(registerBank.bankKey);
  });

  it('refuses a duplicate handle or institution code with 409 BANK_ALREADY_REGISTERED', async () => {
    expect(await client.errorCode(REGISTER, { input: bankInput('alpha', '109') }, admin)).toBe(
      'BANK_ALREADY_REGISTERED',
    );
    expect(await client.errorCode(REGISTER, { input: bankInput('other', '101') }, admin)).toBe(
      'BANK_ALREADY_REGISTERED',
    );
  });

  it('validates every field before it reaches the database', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ bankHandle: 'Bad_Handle' }, 'bank_handle'],
      [{ country: 'FR' }, 'country'],
      [{ coreBaseUrl: 'ftp://x' }, 'core_base_url'],
      [{ coreBaseUrl: 'nope' }, 'core_base_url'],
      [{ coreBaseUrl: 'http://user:pw@core.example' }, 'core_base_url'],
      [{ settlementAccountIban: 'LY00002048000020100120361' }, 'settlement_account_iban'],
      [{ settlementAccountIban: iban('555', '1') }, 'settlement_account_iban'],
      [{ contactEmail: 'nope' }, 'contact_email'],
      [{ institutionCode: '12' }, 'institution_code'],
      [{ minAmount: 10, maxAmount: 5 }, 'max_amount'],
      [{ obScopesSupported: ['accounts:write'] }, 'ob_scopes_supported'],
      [{ settlementAccounts: [{ currency: 'USD', iban: iban('555', '2') }] }, 'settlement_accounts'],
      [{ settlementAccounts: [{ currency: 'GBP', iban: iban('102', '2') }] }, 'settlement_accounts'],
      [
        {
          settlementAccounts: [
            { currency: 'USD', iban: iban('102', '2') },
            { currency: 'USD', iban: iban('102', '3') },
          ],
        },
        'settlement_accounts',
      ],
    ];
    for (const [patch, field] of cases) {
      const result = await client.attempt(REGISTER, { input: { ...bankInput('beta', '102'), ...patch } }, admin);
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(result.errors?.[0]?.extensions?.detail).toMatch(new RegExp(`^${field}(\\[\\d+\\](\\.\\w+)?)?:`));
    }
    expect(await db.knex('banks.banks').where({ handle: 'beta' })).toHaveLength(0);
  });

  it('refuses an internal key another bank already uses, naming the field', async () => {
    const internalKey = 'sik_shared_key_0123456789abcdef';
    await client.execute(REGISTER, { input: { ...bankInput('keyone', '111'), internalKey } }, admin);
    const refused = await client.attempt(REGISTER, { input: { ...bankInput('keytwo', '112'), internalKey } }, admin);
    expect(refused.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: expect.stringMatching(/^internal_key:/),
    });
    expect(await db.knex('banks.banks').where({ handle: 'keytwo' })).toHaveLength(0);
  });

  it('only an operator registers banks', async () => {
    expect(await client.errorCode(REGISTER, { input: bankInput('gamma', '103') })).toBe('UNAUTHORIZED');
    expect(
      await client.errorCode(REGISTER, { input: bankInput('gamma', '103') }, { kind: 'merchant', id: 'mer_1' }),
    ).toBe('FORBIDDEN');
  });

  it('serves capabilities publicly and lets only the bank itself change them', async () => {
    await client.execute(REGISTER, { input: bankInput('delta', '104') }, admin);
    const PATCH = `mutation($input: UpdateBankCapabilitiesInput!) { updateBankCapabilities(handle: "delta", input: $input) { obEnabled obScopesSupported scaExemptionLimit } }`;
    const input = {
      obEnabled: true,
      obScopesSupported: ['accounts:read', 'payments:write'],
      scaExemptionLimit: 50_000,
    };
    expect(await client.errorCode(PATCH, { input }, { kind: 'bank', id: 'alpha' })).toBe('FORBIDDEN');
    expect(await client.errorCode(PATCH, { input })).toBe('INVALID_BANK_KEY');
    const { updateBankCapabilities } = await client.execute(PATCH, { input }, { kind: 'bank', id: 'delta' });
    expect(updateBankCapabilities).toEqual(input);
    const { bankCapabilities } = await client.execute(
      `{ bankCapabilities(handle: "delta") { bankHandle obEnabled obScopesSupported } }`,
    );
    expect(bankCapabilities).toEqual({
      bankHandle: 'delta',
      obEnabled: true,
      obScopesSupported: ['accounts:read', 'payments:write'],
    });
    expect(await client.errorCode(`{ bankCapabilities(handle: "nobank") { obEnabled } }`)).toBe('BANK_NOT_REGISTERED');
  });

  it('hides contact and settlement fields from other callers', async () => {
    const QUERY = `{ bank(handle: "alpha") { handle settlementAccountIban contactEmail coreBaseUrl } }`;
    expect(await client.errorCode(QUERY)).toBe('INVALID_BANK_KEY');
    expect(await client.errorCode(QUERY, {}, { kind: 'bank', id: 'delta' })).toBe('FORBIDDEN');
    const { bank } = await client.execute(QUERY, {}, { kind: 'bank', id: 'alpha' });
    expect(bank).toMatchObject({ handle: 'alpha', contactEmail: 'ops@example.ly' });
    expect((await client.execute(QUERY, {}, admin)).bank.coreBaseUrl).toBe('http://127.0.0.1:7001');
  });

  it('rotates the bank key: the old one is invalid at once', async () => {
    const before = await db
      .knex('auth.credentials')
      .where({ owner_id: 'alpha', kind: 'bank_key' })
      .whereNull('revoked_at');
    const { rotateBankKey } = await client.execute(
      `mutation { rotateBankKey(handle: "alpha") { bankKey } }`,
      {},
      { kind: 'bank', id: 'alpha' },
    );
    expect(rotateBankKey.bankKey).toMatch(/^sbk_alpha_/);
    const after = await db
      .knex('auth.credentials')
      .where({ owner_id: 'alpha', kind: 'bank_key' })
      .whereNull('revoked_at');
    expect(after).toHaveLength(1);
    expect(after[0].id).not.toBe(before[0].id);
  });

  it('gives platform services the routing of a participating bank, internal key unsealed', async () => {
    const ROUTING = `query($handle: String, $institutionCode: String, $includeSuspended: Boolean) {
      bankRouting(handle: $handle, institutionCode: $institutionCode, includeSuspended: $includeSuspended) { handle status institutionCode coreBaseUrl internalKey minAmount maxAmount settlementAccountIban }
    }`;
    const service = { kind: 'service' as const, id: 'payments' };
    const { registerBank } = await client.execute(
      REGISTER,
      { input: { ...bankInput('routed', '121'), minAmount: 100, maxAmount: 5000 } },
      admin,
    );
    const expected = {
      handle: 'routed',
      status: 'ACTIVE',
      institutionCode: '121',
      coreBaseUrl: 'http://127.0.0.1:7001',
      internalKey: registerBank.internalKey,
      minAmount: 100,
      maxAmount: 5000,
      settlementAccountIban: bankInput('routed', '121').settlementAccountIban,
    };
    expect((await client.execute(ROUTING, { handle: 'routed' }, service)).bankRouting).toEqual(expected);
    expect((await client.execute(ROUTING, { institutionCode: '121' }, service)).bankRouting).toEqual(expected);

    expect(await client.errorCode(ROUTING, { handle: 'ghost' }, service)).toBe('BANK_NOT_REGISTERED');
    expect(await client.errorCode(ROUTING, { institutionCode: '999' }, service)).toBe('BANK_NOT_REGISTERED');
    expect(await client.errorCode(ROUTING, {}, service)).toBe('VALIDATION_ERROR');
    expect(await client.errorCode(ROUTING, { handle: 'routed' })).toBe('UNAUTHORIZED');
    for (const principal of [
      admin,
      { kind: 'bank' as const, id: 'routed' },
      { kind: 'merchant' as const, id: 'mer_x' },
    ]) {
      expect(await client.errorCode(ROUTING, { handle: 'routed' }, principal)).toBe('FORBIDDEN');
    }

    await db.knex('banks.banks').where({ handle: 'routed' }).update({ status: 'SUSPENDED' });
    expect(await client.errorCode(ROUTING, { handle: 'routed' }, service)).toBe('BANK_NOT_PARTICIPATING');
    expect(await client.errorCode(ROUTING, { institutionCode: '121' }, service)).toBe('BANK_NOT_PARTICIPATING');
    // Work in flight (engine steps, settlement) still reaches a suspended bank.
    expect((await client.execute(ROUTING, { handle: 'routed', includeSuspended: true }, service)).bankRouting).toEqual({
      ...expected,
      status: 'SUSPENDED',
    });
  });

  it('suspends and resumes a bank (operator only, idempotent): its bank key stops and starts again, its internal key never stops, one audit entry per change', async () => {
    const { registerBank } = await client.execute(REGISTER, { input: bankInput('paused', '131') }, admin);
    const SUSPEND = `mutation($handle: String!) { suspendBank(handle: $handle) { handle status } }`;
    const RESUME = `mutation($handle: String!) { resumeBank(handle: $handle) { handle status } }`;
    // The router's own view of credentials (on the shared pool: never closed here).
    const orm = await openVaultOrm(db);
    const verify = async () => ({
      bankKey: await vault
        .verify(orm.em.fork(), 'bank_key', registerBank.bankKey)
        .then((r) => (r.ok ? 'ok' : r.reason)),
      internalKey: await vault
        .verify(orm.em.fork(), 'internal_key', registerBank.internalKey)
        .then((r) => (r.ok ? 'ok' : r.reason)),
    });
    expect(await client.errorCode(SUSPEND, { handle: 'paused' }, { kind: 'bank', id: 'paused' })).toBe('FORBIDDEN');
    expect(await client.errorCode(SUSPEND, { handle: 'ghost' }, admin)).toBe('BANK_NOT_REGISTERED');

    for (let i = 0; i < 2; i++)
      expect((await client.execute(SUSPEND, { handle: 'paused' }, admin)).suspendBank).toEqual({
        handle: 'paused',
        status: 'SUSPENDED',
      });
    expect(await verify()).toEqual({ bankKey: 'suspended', internalKey: 'ok' });
    expect((await client.execute(RESUME, { handle: 'paused' }, admin)).resumeBank.status).toBe('ACTIVE');
    expect(await verify()).toEqual({ bankKey: 'ok', internalKey: 'ok' });
    const entries = await db
      .knex('audit.entries')
      .where({ target: 'paused' })
      .whereIn('action', ['bank.suspended', 'bank.resumed'])
      .orderBy('at')
      .select('action', 'changes');
    expect(entries).toEqual([
      { action: 'bank.suspended', changes: { status: { from: 'ACTIVE', to: 'SUSPENDED' } } },
      { action: 'bank.resumed', changes: { status: { from: 'SUSPENDED', to: 'ACTIVE' } } },
    ]);
    // One event per change, for the services caching the bank's routing (a repeated suspension writes none).
    const events = await db.knex('banks.outbox').where({ aggregate_id: 'paused' }).orderBy('sequence').select('kind');
    expect(events.map((event: { kind: string }) => event.kind)).toEqual(['bank.suspended', 'bank.resumed']);
  });

  it('answers federation: _service SDL and Bank references', async () => {
    const { _entities } = await client.execute(
      `query($r: [_Any!]!) { _entities(representations: $r) { ... on Bank { handle displayName } } }`,
      {
        r: [
          { __typename: 'Bank', handle: 'alpha' },
          { __typename: 'Bank', handle: 'ghost' },
        ],
      },
    );
    expect(_entities).toEqual([{ handle: 'alpha', displayName: 'Bank alpha' }, null]);
  });

  describe('core URLs: the egress check of every URL the gateway calls', () => {
    const PRIVATE = 'must point to a public address (not loopback, private, link-local or reserved)';
    const METADATA = 'http://169.254.169.254/latest/meta-data';
    const UPDATE = `mutation($handle: String!, $input: UpdateBankCapabilitiesInput!) {
      updateBankCapabilities(handle: $handle, input: $input) { obEnabled }
    }`;
    const logs: Array<Record<string, unknown>> = [];
    let closed: RunningService;
    let production: RunningService;
    let closedClient: ReturnType<typeof subgraphClient>;
    let productionClient: ReturnType<typeof subgraphClient>;
    const detailOf = async (
      target: ReturnType<typeof subgraphClient>,
      query: string,
      variables: Record<string, unknown>,
      as: Principal,
    ) => (await target.attempt(query, variables, as)).errors?.[0]?.extensions;
    const sandboxOf = async (handle: string) =>
      (await db.knex('banks.banks').where({ handle }).first()).sandbox_core_base_url as string | null;

    beforeAll(async () => {
      // PRIVATE_TARGETS off (the default), in development and in production mode.
      closed = await start({
        db,
        platformSecret: TEST_PLATFORM_SECRET,
        production: false,
        logger: recordingLogger(logs),
      });
      production = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: true });
      closedClient = subgraphClient(closed.graphqlUrl, TEST_PLATFORM_SECRET);
      productionClient = subgraphClient(production.graphqlUrl, TEST_PLATFORM_SECRET);
    });
    afterAll(async () => {
      await closed.stop();
      await production.stop();
    });

    it('without PRIVATE_TARGETS registration refuses a core on loopback, a private network or cloud metadata, naming the field', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ coreBaseUrl: 'http://127.0.0.1:7001' }, 'core_base_url'],
        [{ coreBaseUrl: 'http://localhost:7001/core' }, 'core_base_url'],
        [{ coreBaseUrl: 'http://[::1]:7001' }, 'core_base_url'],
        [{ coreBaseUrl: 'http://192.168.1.20' }, 'core_base_url'],
        [{ coreBaseUrl: METADATA }, 'core_base_url'],
        [{ coreBaseUrl: 'http://core.eps.example', sandboxCoreBaseUrl: METADATA }, 'sandbox_core_base_url'],
        [
          { coreBaseUrl: 'http://core.eps.example', sandboxCoreBaseUrl: 'http://10.0.0.5/core' },
          'sandbox_core_base_url',
        ],
      ];
      for (const [patch, field] of cases)
        expect(
          await detailOf(closedClient, REGISTER, { input: { ...bankInput('eps', '141'), ...patch } }, admin),
        ).toMatchObject({ code: 'VALIDATION_ERROR', detail: `${field}: ${PRIVATE}` });
      expect(await db.knex('banks.banks').where({ handle: 'eps' })).toHaveLength(0);
    });

    it('in production a live core_base_url at https://10.0.0.5 is refused; a public name is registered', async () => {
      for (const coreBaseUrl of ['https://10.0.0.5', 'https://10.0.0.5:8443/core', 'https://[fd00::5]/'])
        expect(
          await detailOf(productionClient, REGISTER, { input: { ...bankInput('zeta', '142'), coreBaseUrl } }, admin),
        ).toMatchObject({ code: 'VALIDATION_ERROR', detail: `core_base_url: ${PRIVATE}` });
      expect(await db.knex('banks.banks').where({ handle: 'zeta' })).toHaveLength(0);
      const { registerBank } = await productionClient.execute(
        REGISTER,
        { input: { ...bankInput('zeta', '142'), coreBaseUrl: 'https://core.zeta.example' } },
        admin,
      );
      expect(registerBank.bank.handle).toBe('zeta');
    });

    it('a bank key changes its sandbox core only to a URL that passes: the metadata address is refused, nothing changes, nothing is audited', async () => {
      await closedClient.execute(
        REGISTER,
        { input: { ...bankInput('eta', '143'), coreBaseUrl: 'http://core.eta.example' } },
        admin,
      );
      const eta = { kind: 'bank' as const, id: 'eta' };
      const audited = () => db.knex('audit.entries').where({ target: 'eta', action: 'bank.updated' });
      for (const sandboxCoreBaseUrl of [
        METADATA,
        'http://127.0.0.1:7002',
        'https://10.0.0.5',
        'http://[fd00:ec2::254]/',
      ])
        expect(
          await detailOf(
            closedClient,
            UPDATE,
            { handle: 'eta', input: { sandboxCoreBaseUrl, sandboxInternalKey: 'sik_test_eta_0123456789abcdef' } },
            eta,
          ),
        ).toMatchObject({ code: 'VALIDATION_ERROR', detail: `sandbox_core_base_url: ${PRIVATE}` });
      expect(await sandboxOf('eta')).toBeNull();
      expect(await audited()).toHaveLength(0);
      expect(logs.filter((line) => line.level === 'warn' && line.action === 'bank.updated')).toEqual([]);

      // PRIVATE_TARGETS on opens loopback and private networks, never cloud metadata.
      expect(
        await detailOf(
          client,
          UPDATE,
          {
            handle: 'eta',
            input: { sandboxCoreBaseUrl: METADATA, sandboxInternalKey: 'sik_test_eta_0123456789abcdef' },
          },
          eta,
        ),
      ).toMatchObject({ code: 'VALIDATION_ERROR', detail: `sandbox_core_base_url: ${PRIVATE}` });
      expect(await sandboxOf('eta')).toBeNull();
    });

    it('each change of a sandbox core is audited and logged at warn (the key never in the log)', async () => {
      const eta = { kind: 'bank' as const, id: 'eta' };
      const key = 'sik_test_eta_0123456789abcdef';
      const moved = { sandboxCoreBaseUrl: 'https://sandbox.eta.example/core', sandboxInternalKey: key };
      await closedClient.execute(UPDATE, { handle: 'eta', input: moved }, eta);
      await closedClient.execute(UPDATE, { handle: 'eta', input: { obEnabled: true } }, eta);
      await closedClient.execute(UPDATE, { handle: 'eta', input: { sandboxCoreBaseUrl: null } }, eta);
      const entries = await db
        .knex('audit.entries')
        .where({ target: 'eta', action: 'bank.updated' })
        .orderBy('at')
        .select('changes');
      expect(entries.map((entry: { changes: Record<string, unknown> }) => entry.changes.sandbox_core_base_url)).toEqual(
        [
          { from: null, to: 'https://sandbox.eta.example/core' },
          undefined,
          { from: 'https://sandbox.eta.example/core', to: null },
        ],
      );
      // The audit log's warn line of every change of where money goes: the sandbox core's two, not the capability's.
      const warnings = logs.filter((line) => line.level === 'warn' && line.action === 'bank.updated');
      expect(warnings).toEqual([
        expect.objectContaining({
          target: 'eta',
          msg: 'where money goes changed',
          actor: expect.objectContaining({ kind: 'bank', id: 'eta' }),
          changes: { sandbox_core_base_url: { from: null, to: 'https://sandbox.eta.example/core' } },
        }),
        expect.objectContaining({
          target: 'eta',
          msg: 'where money goes changed',
          changes: { sandbox_core_base_url: { from: 'https://sandbox.eta.example/core', to: null } },
        }),
      ]);
      expect(JSON.stringify(logs)).not.toContain(key);
    });
  });
});

/** A logger that keeps every line (and hands itself out as every child: request loggers too). */
function recordingLogger(into: Array<Record<string, unknown>>): Logger {
  const record = (level: string) => (fields: Record<string, unknown>, msg?: string) =>
    void into.push({ level, msg, ...fields });
  const logger: Record<string, unknown> = {
    level: 'info',
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    debug: record('debug'),
    trace: record('trace'),
    fatal: record('fatal'),
    child: () => logger,
  };
  return logger as unknown as Logger;
}
