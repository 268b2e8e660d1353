import { call, expectError, responseSchemaOf, type Answer } from '@gateway/rest-compat/testing';
import { sha256Hex } from '@gateway/kernel';
import { startMinimalBank, type MinimalBank, type MinimalCustomer } from '../support/minimal-bank';
import { bearer, FAST_ENGINE } from '../support/payments';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';
import { gql } from '../support/graphql';

/** The internal-key grace of this platform (INTERNAL_KEY_GRACE_SECONDS): short, so "after the grace" fits in a test. */
const GRACE_SECONDS = 3;
const CALLBACK = '/service/callbacks/v1/payment/credit-confirmed';

const ADMIN_KEYS = gql<{ adminKeys: Array<{ id: string; name: string }> }>(`{ adminKeys { id name } }`);
const BANK = gql<{ bank: { handle: string; contactEmail: string } }, { handle: string }>(
  `query($handle: String!) { bank(handle: $handle) { handle contactEmail } }`,
);
const TPP = gql<{ tpp: { id: string; name: string } }, { id: string }>(`query($id: ID!) { tpp(id: $id) { id name } }`);
const CONFIRM = gql<unknown>(`mutation {
  confirmRailCredit(input: { paymentReference: "ops_unknown_reference_0000", sessionId: "ops_unknown_reference_0000", creditorIban: "LY83002048000020100120361", amount: 1, currency: "LYD", rrn: "RRN1" }) { status }
}`);

/**
 * API-CONTRACT "Operator controls": every credential kind revoked or rotated by the operator (or
 * its holder) stops working at once on REST and on GraphQL (the router's /graphql), while the
 * new one works; a rotated internal key still authenticates the core's callbacks during the grace
 * period and the gateway presents the new one to the core from the rotation on.
 */
describe('operator controls: named admin keys and containment of leaked credentials', () => {
  let t: TestPlatform;
  let base: string;
  let admin: Record<string, string>;
  const audit = (where: Record<string, unknown>) => t.platform.db.knex('audit.entries').where(where).orderBy('at');
  /** The code a GraphQL call through the router is refused with, and its HTTP status. */
  const graphqlRefusal = async (
    document: string,
    variables: Record<string, unknown>,
    headers: Record<string, string>,
  ) => {
    const answer = await t.executeExpectingErrors(gql<unknown, Record<string, unknown>>(document), variables, headers);
    return [answer.status, answer.errors[0]?.extensions?.code];
  };

  beforeAll(async () => {
    t = await startTestPlatform({
      env: { INTERNAL_KEY_GRACE_SECONDS: String(GRACE_SECONDS) },
      // A bank's routing kept a minute: only the rotation's event can make the new key go out at once.
      paymentsEngine: { ...FAST_ENGINE, bankRoutingCacheMs: 60_000 },
    });
    base = t.platform.restUrl;
    admin = { 'x-service-admin-key': t.adminKey };
  });
  afterAll(async () => {
    await t.stop();
  });

  describe('named admin keys', () => {
    it('a named key works on REST and GraphQL, acts under its name in the audit log, and stops working at once when revoked', async () => {
      const created = await call(base, 'POST', '/admin/keys', { headers: admin, body: { name: 'alice' } });
      expect(created.status).toBe(201);
      expect(responseSchemaOf('POST', '/admin/keys').safeParse(created.body).error).toBeUndefined();
      expect(created.body).toMatchObject({
        admin_key_id: expect.stringMatching(/^adk_/),
        name: 'alice',
        admin_key: expect.stringMatching(/^adm_/),
      });
      const alice = { 'x-service-admin-key': created.body.admin_key as string };
      const aliceId = created.body.admin_key_id as string;

      // Works as an admin key on both paths.
      const made = await call(base, 'POST', '/admin/keys', { headers: alice, body: { name: 'bob' } });
      expect(made.status).toBe(201);
      expect((await t.execute(ADMIN_KEYS, {}, alice)).adminKeys.map((key) => key.name)).toEqual(['bob', 'alice']);
      const listed = await call(base, 'GET', '/admin/keys', { headers: alice });
      expect(listed.status).toBe(200);
      expect(responseSchemaOf('GET', '/admin/keys').safeParse(listed.body).error).toBeUndefined();
      expect(listed.text).not.toContain(made.body.admin_key);

      // The audit entry names the key that acted, from which address, in which request.
      const [entry] = await audit({ action: 'admin_key.created', target: made.body.admin_key_id });
      expect(entry).toMatchObject({
        actor_kind: 'admin',
        actor_id: aliceId,
        actor_name: 'alice',
        ip: expect.any(String),
        request_id: made.headers.get('x-request-id'),
      });
      // Where money goes, changed with the named key: GET /admin/audit names it, before and after.
      const [from, to] = [lyIban('101', 31), lyIban('102', 32)];
      const merchant = await t.seed.createMerchant({ settlement_iban: from });
      const patched = await call(base, 'PATCH', `/merchants/${merchant.merchantId}`, {
        headers: alice,
        body: { settlement_iban: to },
      });
      expect(patched.status).toBe(200);
      const log = await call(base, 'GET', `/admin/audit?target=${merchant.merchantId}&action=merchant.updated`, {
        headers: admin,
      });
      expect(log.body.entries).toEqual([
        expect.objectContaining({
          actor: { kind: 'admin', id: aliceId, name: 'alice' },
          changes: { settlement_iban: { from, to } },
          ip: '127.0.0.1',
          request_id: patched.headers.get('x-request-id'),
        }),
      ]);
      // The first key keeps its name too.
      expect((await audit({ action: 'admin_key.created', target: aliceId }))[0]).toMatchObject({
        actor_name: 'ADMIN_KEY',
      });

      const revoked = await call(base, 'DELETE', `/admin/keys/${aliceId}`, { headers: admin });
      expect(revoked.status).toBe(200);
      expect(responseSchemaOf('DELETE', '/admin/keys/{id}').safeParse(revoked.body).error).toBeUndefined();
      expect(revoked.body).toMatchObject({ admin_key_id: aliceId, name: 'alice', revoked_at: expect.any(String) });
      expectError(await call(base, 'GET', '/admin/keys', { headers: alice }), 401, 'UNAUTHORIZED');
      expectError(
        await call(base, 'POST', '/admin/keys', { headers: alice, body: { name: 'mallory' } }),
        401,
        'UNAUTHORIZED',
      );
      expect(await graphqlRefusal('{ adminKeys { id } }', {}, alice)).toEqual([401, 'UNAUTHORIZED']);

      // Idempotent; an unknown id is 404 with its own code. bob, whom alice made, went with her
      // (issue 46: no key outlives its maker); a key the first key made is untouched.
      const again = await call(base, 'DELETE', `/admin/keys/${aliceId}`, { headers: admin });
      expect([again.status, again.body]).toEqual([200, revoked.body]);
      expect(await audit({ action: 'admin_key.revoked', target: aliceId })).toHaveLength(1);
      expectError(
        await call(base, 'DELETE', '/admin/keys/adk_nosuchkey', { headers: admin }),
        404,
        'ADMIN_KEY_NOT_FOUND',
      );
      expect(revoked.body.revoked_with).toEqual([
        expect.objectContaining({ admin_key_id: made.body.admin_key_id, created_by: aliceId }),
      ]);
      const bob = { 'x-service-admin-key': made.body.admin_key as string };
      expectError(await call(base, 'GET', '/admin/keys', { headers: bob }), 401, 'UNAUTHORIZED');
      const other = await call(base, 'POST', '/admin/keys', { headers: admin, body: { name: 'erin' } });
      const erin = { 'x-service-admin-key': other.body.admin_key as string };
      expect((await call(base, 'GET', '/admin/keys', { headers: erin })).status).toBe(200);
    });

    it('refuses a second live key with the same name (409) and keys for non-operators', async () => {
      await call(base, 'POST', '/admin/keys', { headers: admin, body: { name: 'carol' } });
      expectError(
        await call(base, 'POST', '/admin/keys', { headers: admin, body: { name: 'carol' } }),
        409,
        'ADMIN_KEY_NAME_TAKEN',
      );
      expectError(await call(base, 'POST', '/admin/keys', { body: { name: 'dave' } }), 401, 'UNAUTHORIZED');
      const merchant = await t.seed.createMerchant();
      expectError(
        await call(base, 'POST', '/admin/keys', { headers: bearer(merchant.apiKey), body: { name: 'dave' } }),
        403,
        'FORBIDDEN',
      );
    });
  });

  describe('bank keys', () => {
    it('an operator revokes a bank key: refused at once on REST and GraphQL; the new key it hands out works', async () => {
      const bank = await t.seed.registerBank();
      const own = { 'x-service-bank-key': bank.bankKey };
      expect((await call(base, 'GET', `/banks/${bank.handle}`, { headers: own })).status).toBe(200);
      expect((await t.execute(BANK, { handle: bank.handle }, own)).bank.contactEmail).toContain(bank.handle);

      // Only an operator revokes (the bank would rotate instead).
      expectError(await call(base, 'POST', `/banks/${bank.handle}/revoke-key`, { headers: own }), 403, 'FORBIDDEN');
      const revoked = await call(base, 'POST', `/banks/${bank.handle}/revoke-key`, { headers: admin });
      expect([revoked.status, revoked.body]).toEqual([200, { bank_handle: bank.handle, revoked_keys: 1 }]);
      expect(responseSchemaOf('POST', '/banks/{handle}/revoke-key').safeParse(revoked.body).error).toBeUndefined();

      expectError(await call(base, 'GET', `/banks/${bank.handle}`, { headers: own }), 401, 'INVALID_BANK_KEY');
      expect(
        await graphqlRefusal(
          'query($handle: String!) { bank(handle: $handle) { contactEmail } }',
          { handle: bank.handle },
          own,
        ),
      ).toEqual([401, 'INVALID_BANK_KEY']);

      const rotated = await call(base, 'POST', `/banks/${bank.handle}/rotate-key`, { headers: admin });
      expect(rotated.status).toBe(200);
      const fresh = { 'x-service-bank-key': rotated.body.bank_key as string };
      expect((await call(base, 'GET', `/banks/${bank.handle}`, { headers: fresh })).status).toBe(200);
      expect((await t.execute(BANK, { handle: bank.handle }, fresh)).bank.handle).toBe(bank.handle);
      expectError(await call(base, 'GET', `/banks/${bank.handle}`, { headers: own }), 401, 'INVALID_BANK_KEY');

      expect((await audit({ target: bank.handle })).map((entry) => entry.action)).toEqual(
        expect.arrayContaining(['bank.key_revoked', 'bank.key_rotated']),
      );
      expect(JSON.stringify(await audit({ target: bank.handle }))).not.toContain('sbk_');
      expectError(
        await call(base, 'POST', '/banks/nosuchbank/revoke-key', { headers: admin }),
        404,
        'BANK_NOT_REGISTERED',
      );
    });
  });

  describe('TPP tokens', () => {
    it('the TPP rotates its token, then the operator does: each old token is refused at once on REST and GraphQL', async () => {
      const tpp = await t.seed.registerTpp();
      const old = bearer(tpp.tppAccessToken);
      expect((await t.execute(TPP, { id: tpp.tppId }, old)).tpp.id).toBe(tpp.tppId);

      const own = await call(base, 'POST', `/ob/tpps/${tpp.tppId}/rotate-token`, { headers: old });
      expect(own.status).toBe(200);
      expect(responseSchemaOf('POST', '/ob/tpps/{id}/rotate-token').safeParse(own.body).error).toBeUndefined();
      const second = bearer(own.body.tpp_access_token);
      expectError(
        await call(base, 'PATCH', `/ob/tpps/${tpp.tppId}`, { headers: old, body: { name: 'Renamed' } }),
        401,
        'INVALID_API_KEY',
      );
      expect(await graphqlRefusal('query($id: ID!) { tpp(id: $id) { id } }', { id: tpp.tppId }, old)).toEqual([
        401,
        'INVALID_API_KEY',
      ]);
      const renamed = await call(base, 'PATCH', `/ob/tpps/${tpp.tppId}`, {
        headers: second,
        body: { name: 'Renamed' },
      });
      expect([renamed.status, renamed.body.name]).toEqual([200, 'Renamed']);

      const byOperator = await call(base, 'POST', `/ob/tpps/${tpp.tppId}/rotate-token`, { headers: admin });
      expect(byOperator.status).toBe(200);
      expect(await graphqlRefusal('query($id: ID!) { tpp(id: $id) { id } }', { id: tpp.tppId }, second)).toEqual([
        401,
        'INVALID_API_KEY',
      ]);
      expect((await t.execute(TPP, { id: tpp.tppId }, bearer(byOperator.body.tpp_access_token))).tpp.name).toBe(
        'Renamed',
      );
      expect(
        (await audit({ action: 'tpp.token_rotated', target: tpp.tppId })).map((entry) => entry.actor_kind),
      ).toEqual(['tpp', 'admin']);

      // Another TPP's token cannot rotate it, and learns nothing (404 as for an unknown id).
      const other = await t.seed.registerTpp();
      expectError(
        await call(base, 'POST', `/ob/tpps/${tpp.tppId}/rotate-token`, { headers: bearer(other.tppAccessToken) }),
        404,
        'TPP_NOT_FOUND',
      );
    });
  });

  describe('internal keys', () => {
    let bank: MinimalBank;
    let merchant: { apiKey: string };
    beforeAll(async () => {
      bank = await startMinimalBank(t);
      merchant = await t.seed.createMerchant();
    });
    afterAll(async () => {
      await bank.core.stop();
    });

    /** A same-bank payment through the minimal core: every core call carries the gateway's internal key. */
    const pay = async (payer: MinimalCustomer, payee: MinimalCustomer) => {
      const created = await t.rest('POST', '/payments/sessions', {
        headers: bearer(merchant.apiKey),
        body: { amount: 1_000, currency: 'LYD', destination: { type: 'iban', value: payee.iban } },
      });
      expect(created.status).toBe(201);
      const id = created.body.session_id as string;
      const answer = await t.rest('POST', `/pay/${id}/authorize`, {
        body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
      });
      return { id, status: answer.body.status as string };
    };
    /** The internal keys the core received for one payment (its OTP check, debit and credit). */
    const keysSentFor = (id: string, payer: MinimalCustomer, since: number) =>
      bank.core.calls
        .slice(since)
        .filter((entry) => entry.body?.reference === id || entry.body?.customer_ref === payer.customerRef)
        .map((entry) => entry.headers['x-service-internal-key']);
    const callback = (key: string): Promise<Answer> =>
      call(base, 'POST', CALLBACK, {
        headers: { 'x-service-internal-key': key },
        body: {
          payment_reference: 'ops_unknown_reference_0000',
          session_id: 'ops_unknown_reference_0000',
          creditor_iban: 'LY83002048000020100120361',
          amount: 1,
          currency: 'LYD',
          rrn: 'RRN1',
        },
      });
    /** Authenticated (the key is accepted) answers SESSION_NOT_FOUND for this unknown payment; a refused key 401. */
    const accepted = async (key: string) => {
      const answer = await callback(key);
      if (answer.status === 401) return false;
      expectError(answer, 404, 'SESSION_NOT_FOUND');
      return true;
    };

    it('rotation: the gateway presents the new key on the very next core call; the old one is accepted on callbacks for the grace period only', async () => {
      const payer = await bank.customer({ balance: 10_000 });
      const payee = await bank.customer({ balance: 0 });
      // The engine now holds the bank's routing (old key) in its minute-long cache.
      let since = bank.core.calls.length;
      const before = await pay(payer, payee);
      expect(before.status).toBe('COMPLETED');
      expect(new Set(keysSentFor(before.id, payer, since))).toEqual(new Set([bank.internalKey]));

      const rotated = await call(base, 'POST', `/banks/${bank.handle}/rotate-internal-key`, {
        headers: { 'x-service-bank-key': bank.bankKey },
      });
      expect(rotated.status).toBe(200);
      expect(
        responseSchemaOf('POST', '/banks/{handle}/rotate-internal-key').safeParse(rotated.body).error,
      ).toBeUndefined();
      const fresh = rotated.body.internal_key as string;
      const graceEnds = Date.parse(rotated.body.previous_key_expires_at);
      expect(graceEnds - Date.now()).toBeLessThanOrEqual(GRACE_SECONDS * 1000);

      // Callbacks: both keys are accepted during the grace period, on REST and GraphQL.
      expect(await accepted(bank.internalKey)).toBe(true);
      expect(await accepted(fresh)).toBe(true);
      const during = await t.executeExpectingErrors(CONFIRM, {}, { 'x-service-internal-key': bank.internalKey });
      expect(during.errors[0]?.extensions?.code).toBe('SESSION_NOT_FOUND');

      // The bank installs the new key at its core, which from now on refuses the old one.
      bank.core.useInternalKey(fresh);
      since = bank.core.calls.length;
      const after = await pay(payer, payee);
      expect(after.status).toBe('COMPLETED');
      expect(new Set(keysSentFor(after.id, payer, since))).toEqual(new Set([fresh]));

      // After the grace period the old key is refused on every path; the new one goes on.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, graceEnds - Date.now()) + 100));
      expectError(await callback(bank.internalKey), 401, 'UNAUTHORIZED');
      const refused = await t.executeExpectingErrors(CONFIRM, {}, { 'x-service-internal-key': bank.internalKey });
      expect([refused.status, refused.errors[0]?.extensions?.code]).toEqual([401, 'UNAUTHORIZED']);
      expect(await accepted(fresh)).toBe(true);

      const [entry] = await audit({ action: 'bank.internal_key_rotated', target: bank.handle });
      expect(entry).toMatchObject({ actor_kind: 'bank', actor_id: bank.handle });
      const log = JSON.stringify(await audit({ target: bank.handle }));
      expect(log).not.toContain(fresh);
      expect(log).not.toContain(bank.internalKey);
    });

    it('two rotations racing (the bank and an operator) leave exactly one current key, the one the gateway presents', async () => {
      const answers = await Promise.all(
        [{ 'x-service-bank-key': bank.bankKey }, admin].map((headers) =>
          call(base, 'POST', `/banks/${bank.handle}/rotate-internal-key`, { headers }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const issued = answers.map((answer) => answer.body.internal_key as string);
      const current = await t.platform.db
        .knex('auth.credentials')
        .where({ owner_id: bank.handle, kind: 'internal_key' })
        .whereNull('revoked_at')
        .whereNull('expires_at');
      expect(current).toHaveLength(1);
      const winner = issued.find((key) => sha256Hex(key) === current[0].hash);
      expect(winner).toBeDefined();

      // The gateway presents the winner: a core that accepts only it books the next payment.
      bank.core.useInternalKey(winner!);
      const payer = await bank.customer({ balance: 10_000 });
      const payee = await bank.customer({ balance: 0 });
      const since = bank.core.calls.length;
      const paid = await pay(payer, payee);
      expect(paid.status).toBe('COMPLETED');
      expect(new Set(keysSentFor(paid.id, payer, since))).toEqual(new Set([winner]));
      // The loser is only a previous key now: it ends with the grace period.
      const loser = issued.find((key) => key !== winner)!;
      const [row] = await t.platform.db.knex('auth.credentials').where({ hash: sha256Hex(loser) });
      expect(row.expires_at).not.toBeNull();
    });
  });
});
