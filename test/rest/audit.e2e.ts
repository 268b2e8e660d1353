import { call, expectError, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const bankKey = (key: string) => ({ 'x-service-bank-key': key });

/**
 * The audit log end to end (API-CONTRACT "Operator controls"): each audited action of the REST
 * API leaves exactly one entry, in its own transaction, read back through GET /admin/audit by
 * an operator only; the database refuses to change an entry; no secret ever reaches the table.
 */
describe('REST audit log', () => {
  let t: TestPlatform;
  let base: string;
  let admin: Record<string, string>;
  let institution = 700;

  const audit = (query: Record<string, string | number>, headers: Record<string, string> = admin) => {
    const search = new URLSearchParams(
      Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]),
    );
    return call(base, 'GET', `/admin/audit?${search}`, { headers });
  };
  const entries = async (query: Record<string, string | number>): Promise<any[]> => {
    const answer = await audit({ limit: 100, ...query });
    expect(answer.status).toBe(200);
    expect(responseSchemaOf('GET', '/admin/audit').safeParse(answer.body).error).toBeUndefined();
    return answer.body.entries;
  };
  const ok = (answer: Answer, status = 200): any => {
    expect({ status: answer.status, body: answer.body }).toEqual({ status, body: expect.anything() });
    return answer.body;
  };
  const registerBank = (overrides: Record<string, unknown> = {}) => {
    const code = String(institution++);
    return call(base, 'POST', '/banks', {
      headers: admin,
      body: {
        bank_handle: `ab${code}`,
        display_name: `Audit Bank ${code}`,
        country: 'LY',
        core_base_url: 'http://127.0.0.1:9',
        settlement_account_iban: lyIban(code, 1),
        contact_email: `ops@ab${code}.ly`,
        institution_code: code,
        ...overrides,
      },
    });
  };

  beforeAll(async () => {
    // Behind a trusted proxy (loopback), X-Forwarded-For names the client: the entry must carry it.
    t = await startTestPlatform({ env: { TRUST_PROXY: 'loopback' } });
    base = t.platform.restUrl;
    admin = { 'x-service-admin-key': t.adminKey };
  });
  afterAll(async () => {
    await t.stop();
  });

  it("shows an operator's change of a merchant's settlement_iban: before and after, the admin key's name, the caller's IP and the request id", async () => {
    const before = lyIban('101', 11);
    const after = lyIban('102', 22);
    const merchant = await t.seed.createMerchant({ settlement_iban: before });
    const requestId = `req_auditIban${Date.now()}`;
    const patched = await call(base, 'PATCH', `/merchants/${merchant.merchantId}`, {
      headers: { ...admin, 'x-request-id': requestId, 'x-forwarded-for': '203.0.113.77' },
      body: { settlement_iban: after },
    });
    expect(ok(patched).settlement_iban).toBe(after);
    expect(patched.headers.get('x-request-id')).toBe(requestId);

    expect(await entries({ target: merchant.merchantId, action: 'merchant.updated' })).toEqual([
      {
        audit_id: expect.stringMatching(/^aud_/),
        at: expect.any(String),
        actor: { kind: 'admin', id: null, name: 'ADMIN_KEY' },
        action: 'merchant.updated',
        target: merchant.merchantId,
        changes: { settlement_iban: { from: before, to: after } },
        ip: '203.0.113.77',
        request_id: requestId,
      },
    ]);

    // Without a request id of the caller's, the entry carries the one the response was given.
    const renamed = await call(base, 'PATCH', `/merchants/${merchant.merchantId}`, {
      headers: admin,
      body: { name: 'Renamed Shop', webhook_url: 'http://127.0.0.1:9/hooks' },
    });
    ok(renamed);
    const [latest] = await entries({ target: merchant.merchantId, action: 'merchant.updated', limit: 1 });
    expect(latest).toMatchObject({
      request_id: renamed.headers.get('x-request-id'),
      changes: {
        name: { from: 'Test Shop', to: 'Renamed Shop' },
        webhook_url: { from: null, to: 'http://127.0.0.1:9/hooks' },
      },
    });
  });

  it('each audited action leaves exactly one entry, with its actor and what it changed', async () => {
    // A merchant: created and rotated by the operator, changed and its secret rotated by itself.
    const merchant = ok(
      await call(base, 'POST', '/merchants', {
        headers: admin,
        body: { name: 'Audited Shop', mode: 'live', webhook_url: 'http://127.0.0.1:9/a' },
      }),
      201,
    );
    const id = merchant.merchant_id;
    ok(await call(base, 'PATCH', `/merchants/${id}`, { headers: bearer(merchant.api_key), body: { name: 'Shop 2' } }));
    const rotated = ok(await call(base, 'POST', `/merchants/${id}/rotate-key`, { headers: admin }));
    ok(await call(base, 'POST', `/merchants/${id}/rotate-webhook-secret`, { headers: bearer(rotated.api_key) }));
    const operator = { kind: 'admin', id: null, name: 'ADMIN_KEY' };
    const itself = { kind: 'merchant', id, name: null };
    expect((await entries({ target: id })).map((e) => [e.action, e.actor, e.changes])).toEqual([
      ['merchant.webhook_secret_rotated', itself, { webhook_secret: { from: '[secret]', to: '[secret]' } }],
      ['merchant.key_rotated', operator, { api_key: { from: '[secret]', to: '[secret]' } }],
      ['merchant.updated', itself, { name: { from: 'Audited Shop', to: 'Shop 2' } }],
      [
        'merchant.created',
        operator,
        {
          name: { to: 'Audited Shop' },
          mode: { to: 'live' },
          status: { to: 'ACTIVE' },
          webhook_url: { to: 'http://127.0.0.1:9/a' },
          api_key: { to: '[secret]' },
          webhook_secret: { to: '[secret]' },
        },
      ],
    ]);

    // A bank: registered by the operator, its capabilities and key changed by itself.
    const bank = ok(await registerBank({ ob_enabled: true, sca_exemption_limit: 5_000 }), 201);
    const handle = bank.bank_handle;
    ok(
      await call(base, 'PATCH', `/banks/${handle}`, {
        headers: bankKey(bank.bank_key),
        body: { ob_enabled: false, sca_exemption_limit: 7_500, max_consent_expiry_days: 90 },
      }),
    );
    ok(await call(base, 'POST', `/banks/${handle}/rotate-key`, { headers: bankKey(bank.bank_key) }));
    const theBank = { kind: 'bank', id: handle, name: null };
    const bankEntries = await entries({ target: handle });
    expect(bankEntries.map((e) => [e.action, e.actor])).toEqual([
      ['bank.key_rotated', theBank],
      ['bank.updated', theBank],
      ['bank.registered', operator],
    ]);
    // max_consent_expiry_days was sent with its current value: not a change.
    expect(bankEntries[1].changes).toEqual({
      ob_enabled: { from: true, to: false },
      sca_exemption_limit: { from: 5_000, to: 7_500 },
    });
    expect(bankEntries[0].changes).toEqual({ bank_key: { from: '[secret]', to: '[secret]' } });
    expect(bankEntries[2].changes).toMatchObject({
      core_base_url: { to: 'http://127.0.0.1:9' },
      settlement_account_iban: { to: bank.settlement_account_iban },
      ob_enabled: { to: true },
      sca_exemption_limit: { to: 5_000 },
      bank_key: { to: '[secret]' },
      internal_key: { to: '[secret]' },
    });

    // A TPP: registered and its secret rotated by the operator, its webhook URL changed by itself.
    const tpp = ok(
      await call(base, 'POST', '/ob/tpps', {
        headers: admin,
        body: { name: 'Audited TPP', mode: 'live', redirect_uris: ['https://tpp.example/cb'] },
      }),
      201,
    );
    ok(
      await call(base, 'PATCH', `/ob/tpps/${tpp.tpp_id}`, {
        headers: bearer(tpp.tpp_access_token),
        body: { webhook_url: 'http://127.0.0.1:9/tpp' },
      }),
    );
    ok(await call(base, 'POST', `/ob/tpps/${tpp.tpp_id}/rotate-webhook-secret`, { headers: admin }));
    expect((await entries({ target: tpp.tpp_id })).map((e) => [e.action, e.actor, e.changes])).toEqual([
      ['tpp.webhook_secret_rotated', operator, { webhook_secret: { from: '[secret]', to: '[secret]' } }],
      [
        'tpp.updated',
        { kind: 'tpp', id: tpp.tpp_id, name: null },
        { webhook_url: { from: null, to: 'http://127.0.0.1:9/tpp' } },
      ],
      [
        'tpp.registered',
        operator,
        {
          name: { to: 'Audited TPP' },
          mode: { to: 'live' },
          redirect_uris: { to: ['https://tpp.example/cb'] },
          tpp_access_token: { to: '[secret]' },
          webhook_secret: { to: '[secret]' },
        },
      ],
    ]);

    // A refused action leaves nothing: the change and its entry commit together or not at all.
    const refused = await call(base, 'PATCH', `/merchants/${id}`, {
      headers: admin,
      body: { webhook_url: 'not a url' },
    });
    expectError(refused, 400, 'VALIDATION_ERROR');
    expect(await entries({ target: id, action: 'merchant.updated' })).toHaveLength(1);
  });

  it('filters by actor (id or admin key name), action, target and time, and pages without overlap', async () => {
    const merchant = await t.seed.createMerchant({ name: 'Paged Shop' });
    for (let n = 1; n <= 5; n++)
      ok(
        await call(base, 'PATCH', `/merchants/${merchant.merchantId}`, {
          headers: n % 2 ? admin : bearer(merchant.apiKey),
          body: { name: `Paged ${n}` },
        }),
      );
    const all = await entries({ target: merchant.merchantId });
    expect(all.map((e) => e.action)).toEqual([...Array(5).fill('merchant.updated'), 'merchant.created']);
    expect(all.map((e) => e.at)).toEqual([...all.map((e) => e.at)].sort().reverse());

    const byMerchant = await entries({ target: merchant.merchantId, actor: merchant.merchantId });
    expect(byMerchant.map((e) => e.changes.name.to)).toEqual(['Paged 4', 'Paged 2']);
    const byOperator = await entries({ target: merchant.merchantId, actor: 'ADMIN_KEY' });
    expect(byOperator.map((e) => e.action)).toEqual([...Array(3).fill('merchant.updated'), 'merchant.created']);
    expect(byOperator.every((e) => e.actor.name === 'ADMIN_KEY')).toBe(true);
    expect((await entries({ actor: merchant.merchantId })).map((e) => e.audit_id)).toEqual(
      byMerchant.map((e) => e.audit_id),
    );
    expect(await entries({ target: merchant.merchantId, action: 'merchant.created' })).toEqual([all[5]]);

    // from is inclusive, to exclusive.
    const window = await entries({ target: merchant.merchantId, from: all[3].at, to: all[1].at });
    expect(window.map((e) => e.audit_id)).toEqual([all[2].audit_id, all[3].audit_id]);

    const pages: any[][] = [];
    let cursor: string | null = null;
    do {
      const answer: Answer = await audit({ target: merchant.merchantId, limit: 2, ...(cursor ? { cursor } : {}) });
      expect(answer.status).toBe(200);
      pages.push(answer.body.entries);
      cursor = answer.body.pagination.next_cursor;
      expect(answer.body.pagination.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2]);
    expect(pages.flat()).toEqual(all);
  });

  it('refuses bad filters with 400 VALIDATION_ERROR', async () => {
    const bad: Array<Record<string, string | number>> = [
      { limit: 0 },
      { limit: 101 },
      { limit: 'many' },
      { from: 'yesterday' },
      { to: '2026-13-01T00:00:00Z' },
      { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
      { action: 'merchant.deleted' },
      { cursor: 'not-a-cursor' },
      { actor: '' },
      { who: 'ADMIN_KEY' },
    ];
    for (const query of bad) expectError(await audit(query), 400, 'VALIDATION_ERROR');
  });

  it('is for operators only: 401 without a credential, 403 for a merchant, bank or TPP', async () => {
    const merchant = await t.seed.createMerchant();
    const bank = await t.seed.registerBank();
    const tpp = await t.seed.registerTpp();
    expectError(await audit({}, {}), 401, 'UNAUTHORIZED');
    expectError(await audit({}, { 'x-service-admin-key': 'wrong' }), 401, 'UNAUTHORIZED');
    for (const headers of [bearer(merchant.apiKey), bankKey(bank.bankKey), bearer(tpp.tppAccessToken)])
      expectError(await audit({}, headers), 403, 'FORBIDDEN');
  });

  it("refuses UPDATE and DELETE on the platform's audit.entries", async () => {
    const merchant = await t.seed.createMerchant();
    const table = () => t.platform.db.knex('audit.entries').where({ target: merchant.merchantId });
    await expect(table().update({ target: 'rewritten' })).rejects.toThrow(/append-only/);
    await expect(table().del()).rejects.toThrow(/append-only/);
    expect(await table()).toHaveLength(1);
  });

  it('never holds a secret: none of the secrets the audited actions issued appears anywhere in audit.entries', async () => {
    const secrets: string[] = [t.adminKey];
    const keep = (...values: Array<string | null | undefined>) => {
      for (const value of values) {
        expect(typeof value).toBe('string');
        secrets.push(value!);
      }
    };

    const merchant = ok(await call(base, 'POST', '/merchants', { headers: admin, body: { name: 'Secret Shop' } }), 201);
    keep(merchant.api_key, merchant.webhook_secret);
    const id = merchant.merchant_id;
    keep(ok(await call(base, 'POST', `/merchants/${id}/rotate-key`, { headers: admin })).api_key);
    keep(ok(await call(base, 'POST', `/merchants/${id}/rotate-webhook-secret`, { headers: admin })).webhook_secret);

    const generated = ok(await registerBank({ sandbox_core_base_url: 'http://127.0.0.1:10' }), 201);
    keep(generated.bank_key, generated.internal_key, generated.sandbox_internal_key);
    const ownKey = `sik_own_${'k'.repeat(8)}${Date.now()}abcdefghijkl`;
    const supplied = ok(await registerBank({ internal_key: ownKey }), 201);
    keep(supplied.bank_key, ownKey);
    const sandboxKey = `sandbox-${Date.now()}-0123456789abcdef`;
    ok(
      await call(base, 'PATCH', `/banks/${supplied.bank_handle}`, {
        headers: bankKey(supplied.bank_key),
        body: { sandbox_core_base_url: 'http://127.0.0.1:11', sandbox_internal_key: sandboxKey },
      }),
    );
    keep(sandboxKey);
    keep(
      ok(await call(base, 'POST', `/banks/${supplied.bank_handle}/rotate-key`, { headers: bankKey(supplied.bank_key) }))
        .bank_key,
    );

    const tpp = ok(
      await call(base, 'POST', '/ob/tpps', {
        headers: admin,
        body: { name: 'Secret TPP', redirect_uris: ['https://tpp.example/cb'] },
      }),
      201,
    );
    keep(tpp.tpp_access_token, tpp.webhook_secret);
    keep(
      ok(await call(base, 'POST', `/ob/tpps/${tpp.tpp_id}/rotate-webhook-secret`, { headers: admin })).webhook_secret,
    );

    // Issue 27's containment actions: a named admin key, a bank key handed out by an operator, a
    // rotated internal key, a rotated TPP token.
    keep(
      ok(await call(base, 'POST', '/admin/keys', { headers: admin, body: { name: 'secret-keeper' } }), 201).admin_key,
    );
    keep(ok(await call(base, 'POST', `/banks/${generated.bank_handle}/rotate-key`, { headers: admin })).bank_key);
    keep(
      ok(await call(base, 'POST', `/banks/${generated.bank_handle}/rotate-internal-key`, { headers: admin }))
        .internal_key,
    );
    keep(ok(await call(base, 'POST', `/ob/tpps/${tpp.tpp_id}/rotate-token`, { headers: admin })).tpp_access_token);

    // Every column of every entry, as text.
    const { rows } = await t.platform.db.knex.raw('select row_to_json(e)::text as line from "audit"."entries" e');
    const table = rows.map((row: { line: string }) => row.line).join('\n');
    // Not vacuous: the actions above are in the table, their secrets as "[secret]".
    for (const target of [id, generated.bank_handle, supplied.bank_handle, tpp.tpp_id]) expect(table).toContain(target);
    expect(table).toContain('[secret]');
    const [sandboxChange] = await entries({ target: supplied.bank_handle, action: 'bank.updated' });
    expect(sandboxChange.changes).toEqual({
      sandbox_core_base_url: { from: null, to: 'http://127.0.0.1:11' },
      sandbox_internal_key: { to: '[secret]' },
    });
    expect(secrets).toHaveLength(19);
    for (const secret of secrets) expect({ secret, found: table.includes(secret) }).toEqual({ secret, found: false });
  });
});
