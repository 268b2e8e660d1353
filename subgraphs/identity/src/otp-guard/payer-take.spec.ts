import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { sha256Hex, type Principal } from '@gateway/kernel';
import { composeIBAN, friendlyFormatIBAN } from 'ibantools';
import { start } from '../service';
import { OTP_GUARD_MAX_REFUSALS } from './otp-guard.service';

const ROUTING_FIELDS = 'handle iban bankHandle institutionCode bankCustomerRef status bank { handle }';
const PAYER_TAKE = `mutation($alias: String, $iban: String, $livemode: Boolean!, $guess: String!, $client: String!, $settle: [OtpSettlementInput!]) {
  takePayerOtpAttempt(alias: $alias, iban: $iban, livemode: $livemode, guess: $guess, client: $client, settle: $settle) {
    routing { ${ROUTING_FIELDS} }
    attempt { attemptId retryAfterSeconds repeated }
  }
}`;
/** The same call, answering which give-backs it applied. */
const PAYER_TAKE_SETTLED = PAYER_TAKE.replace('attempt { attemptId retryAfterSeconds repeated }', '$& settled');
const ROUTING = `query($alias: String, $iban: String) { aliasRouting(alias: $alias, iban: $iban) { ${ROUTING_FIELDS} } }`;
const TAKE = `mutation($bankHandle: String!, $customerRef: String!, $guess: String!, $client: String!) {
  takeOtpAttempt(bankHandle: $bankHandle, customerRef: $customerRef, guess: $guess, client: $client) { attemptId retryAfterSeconds }
}`;
const payments: Principal = { kind: 'service', id: 'payments' };

const iban = (institution: string, account: string) =>
  composeIBAN({ countryCode: 'LY', bban: `${institution}001${account.padStart(15, '0')}` })!;

interface PayerTake {
  routing: Record<string, unknown> & { handle: string; bankHandle: string; bankCustomerRef: string };
  attempt: { attemptId: string | null; retryAfterSeconds: number | null; repeated: boolean | null } | null;
}

describe("identity subgraph: a payer's routing and OTP check in one call", () => {
  let db: Database;
  let service: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  let guesses = 0;
  const freshGuess = () => sha256Hex(`payer-guess-${(guesses += 1)}`);
  const payerTake = (
    lookup: { alias: string } | { iban: string },
    options: { guess?: string; livemode?: boolean; from?: string; settle?: unknown[] } = {},
  ) =>
    client
      .execute(
        PAYER_TAKE,
        {
          ...lookup,
          livemode: options.livemode ?? true,
          guess: options.guess ?? freshGuess(),
          client: options.from ?? '203.0.113.1',
          settle: options.settle ?? null,
        },
        payments,
      )
      .then((data) => data.takePayerOtpAttempt as PayerTake);
  /** The checks held under a key: [attempt ids]. */
  const held = async (bankHandle: string, customerRef: string) => {
    const row = await db
      .knex('identity.otp_guards')
      .where({ bank_handle: bankHandle, customer_ref: customerRef })
      .first();
    return ((row?.attempts ?? []) as Array<{ id: string }>).map((check) => check.id);
  };
  /** The SQL statements the pool sent while `work` ran (this file's service is alone on its database). */
  const statementsDuring = async (work: () => Promise<unknown>) => {
    const sent: string[] = [];
    const listen = (query: { sql: string }) => sent.push(query.sql);
    db.knex.on('query', listen);
    try {
      await work();
    } finally {
      db.knex.off('query', listen);
    }
    return sent;
  };
  const addAlias = (row: {
    handle: string;
    iban: string;
    bank: string;
    ref: string;
    status?: 'ACTIVE' | 'INACTIVE';
    at: string;
  }) =>
    db.knex('identity.aliases').insert({
      handle: row.handle,
      iban: row.iban,
      institution_code: row.iban.slice(4, 7),
      bank_handle: row.bank,
      customer_display_name: 'Ali Ben Omar',
      bank_customer_ref: row.ref,
      phone: null,
      status: row.status ?? 'ACTIVE',
      created_at: new Date(row.at),
      deactivated_at: row.status === 'INACTIVE' ? new Date(row.at) : null,
    });

  const shared = iban('101', '500');
  beforeAll(async () => {
    db = await openTestDatabase();
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
    await addAlias({ handle: 'amina', iban: iban('101', '1'), bank: 'alpha', ref: 'cust-amina', at: '2026-01-01' });
    await addAlias({ handle: 'bashir', iban: iban('102', '2'), bank: 'beta', ref: 'cust-bashir', at: '2026-01-01' });
    // One IBAN, three handles: the newest ACTIVE one routes it, whatever the INACTIVE ones.
    await addAlias({ handle: 'old.one', iban: shared, bank: 'alpha', ref: 'cust-old', at: '2026-01-01' });
    await addAlias({ handle: 'mid.one', iban: shared, bank: 'alpha', ref: 'cust-mid', at: '2026-02-01' });
    await addAlias({
      handle: 'new.gone',
      iban: shared,
      bank: 'alpha',
      ref: 'cust-new',
      status: 'INACTIVE',
      at: '2026-03-01',
    });
    await addAlias({
      handle: 'gone',
      iban: iban('101', '9'),
      bank: 'alpha',
      ref: 'cust-gone',
      status: 'INACTIVE',
      at: '2026-01-01',
    });
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  it('answers the routing aliasRouting answers, by alias, alias@bank and IBAN (the newest ACTIVE alias of an IBAN, else the newest)', async () => {
    const lookups = [
      { alias: 'amina' },
      { alias: ' Amina@alpha ' },
      { iban: friendlyFormatIBAN(iban('101', '1'))! },
      { iban: shared },
      { alias: 'gone' },
      { iban: iban('101', '9') },
    ];
    for (const lookup of lookups) {
      const routed = (await client.execute(ROUTING, lookup, payments)).aliasRouting;
      expect([lookup, (await payerTake(lookup)).routing]).toEqual([lookup, routed]);
    }
    expect((await payerTake({ iban: shared })).routing).toMatchObject({
      handle: 'mid.one',
      bankCustomerRef: 'cust-mid',
    });
    expect((await payerTake({ alias: 'amina' })).routing.bank).toEqual({ handle: 'alpha' });
  });

  it('takes the check for the customer it resolved, in the same SQL statement, under the test key in the test world', async () => {
    const before = await held('beta', 'cust-bashir');
    let taken: PayerTake | undefined;
    const sent = await statementsDuring(async () => (taken = await payerTake({ alias: 'bashir' })));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^with payer as \(select \* from identity\.aliases .*insert into identity\.otp_guards/s);
    expect(taken!.attempt).toEqual({
      attemptId: expect.stringMatching(/^otp_/),
      retryAfterSeconds: null,
      repeated: false,
    });
    expect(await held('beta', 'cust-bashir')).toEqual([...before, taken!.attempt!.attemptId]);

    const test = await payerTake({ alias: 'bashir' }, { livemode: false });
    expect(await held('beta', 'test:cust-bashir')).toEqual([test.attempt!.attemptId]);
    expect(await held('beta', 'cust-bashir')).toEqual([...before, taken!.attempt!.attemptId]);
  });

  it("counts against the customer's one limit with every other check of theirs: the client's sixth guess is refused whichever way it came", async () => {
    const customer = { bankHandle: 'alpha', customerRef: 'cust-amina' };
    const from = '198.51.100.7';
    for (let i = 0; i < OTP_GUARD_MAX_REFUSALS - 2; i += 1)
      expect((await payerTake({ alias: 'amina' }, { from })).attempt!.attemptId).toMatch(/^otp_/);
    const direct = (guess: string) =>
      client.execute(TAKE, { ...customer, guess, client: from }, payments).then((data) => data.takeOtpAttempt);
    expect((await direct(freshGuess())).attemptId).toMatch(/^otp_/);
    expect((await payerTake({ iban: iban('101', '1') }, { from })).attempt!.attemptId).toMatch(/^otp_/);
    const refused = await payerTake({ alias: 'amina@alpha' }, { from });
    expect(refused.routing.handle).toBe('amina');
    expect(refused.attempt).toEqual({ attemptId: null, retryAfterSeconds: expect.any(Number), repeated: null });
    expect(refused.attempt!.retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect((await direct(freshGuess())).attemptId).toBeNull();
    // Another client, and the customer's other world, are not held back.
    expect((await payerTake({ alias: 'amina' }, { from: '192.0.2.1' })).attempt!.attemptId).toMatch(/^otp_/);
    expect((await payerTake({ alias: 'amina' }, { from, livemode: false })).attempt!.attemptId).toMatch(/^otp_/);
  });

  it('answers a guess already held with its check, marked repeated, and lets give-backs ride first', async () => {
    const guess = freshGuess();
    const first = await payerTake({ alias: 'bashir' }, { guess, from: '192.0.2.50' });
    const again = await payerTake({ alias: 'bashir' }, { guess, from: '192.0.2.50' });
    expect(first.attempt!.repeated).toBe(false);
    expect(again.attempt).toEqual({ ...first.attempt, repeated: true });

    const settle = [{ bankHandle: 'beta', customerRef: 'cust-bashir', attemptId: first.attempt!.attemptId }];
    const rode = await payerTake({ alias: 'bashir' }, { guess, from: '192.0.2.50', settle });
    expect(rode.attempt!.repeated).toBe(false);
    expect(rode.attempt!.attemptId).not.toBe(first.attempt!.attemptId);
    expect(await held('beta', 'cust-bashir')).not.toContain(first.attempt!.attemptId);
  });

  it("gives back the checks riding on a payer's take in its one statement, other customers' too, and answers which; an unknown alias's call none", async () => {
    const from = '192.0.2.60';
    const takeSettled = (lookup: { alias: string }, settle: unknown[]) =>
      client
        .execute(PAYER_TAKE_SETTLED, { ...lookup, livemode: true, guess: freshGuess(), client: from, settle }, payments)
        .then((data) => data.takePayerOtpAttempt as PayerTake & { settled: string[] });
    const amina = async () => (await payerTake({ alias: 'amina' }, { from })).attempt!.attemptId!;
    const other = await amina();
    const own = (await payerTake({ alias: 'bashir' }, { from })).attempt!.attemptId!;
    let answer: (PayerTake & { settled: string[] }) | undefined;
    const sent = await statementsDuring(
      async () =>
        (answer = await takeSettled({ alias: 'bashir' }, [
          { bankHandle: 'alpha', customerRef: 'cust-amina', attemptId: other },
          { bankHandle: 'beta', customerRef: 'cust-bashir', attemptId: own },
        ])),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^with payer as .*insert into identity\.otp_guards .*for update of locked skip locked/s);
    expect(answer!.settled).toEqual([other, own]);
    expect(await held('alpha', 'cust-amina')).not.toContain(other);
    expect(await held('beta', 'cust-bashir')).not.toContain(own);
    expect(await held('beta', 'cust-bashir')).toContain(answer!.attempt!.attemptId);

    // An INACTIVE alias: no check taken, the give-backs it carries applied all the same.
    const another = await amina();
    const gone = await takeSettled({ alias: 'gone' }, [
      { bankHandle: 'alpha', customerRef: 'cust-amina', attemptId: another },
    ]);
    expect([gone.attempt, gone.settled]).toEqual([null, [another]]);
    expect(await held('alpha', 'cust-amina')).not.toContain(another);

    // No such alias: the call fails and its caller keeps the give-backs, so none is applied.
    const kept = await amina();
    const settle = [{ bankHandle: 'alpha', customerRef: 'cust-amina', attemptId: kept }];
    expect(
      await client.errorCode(
        PAYER_TAKE_SETTLED,
        { alias: 'nobody', livemode: true, guess: freshGuess(), client: from, settle },
        payments,
      ),
    ).toBe('ALIAS_NOT_FOUND');
    expect(await held('alpha', 'cust-amina')).toContain(kept);
  });

  it('takes nothing for an INACTIVE alias (returned with its status), an unknown one or one at another bank', async () => {
    const gone = await payerTake({ alias: 'gone' });
    expect(gone).toEqual({ routing: expect.objectContaining({ handle: 'gone', status: 'INACTIVE' }), attempt: null });
    expect(await held('alpha', 'cust-gone')).toEqual([]);
    const refusals = [
      [{ alias: 'nobody' }, 'ALIAS_NOT_FOUND'],
      [{ alias: 'amina@beta' }, 'ALIAS_NOT_FOUND'],
      [{ iban: iban('101', '777') }, 'ALIAS_NOT_FOUND'],
      [{ alias: 'not an alias' }, 'VALIDATION_ERROR'],
      [{}, 'VALIDATION_ERROR'],
    ] as const;
    for (const [lookup, code] of refusals) {
      const variables = { ...lookup, livemode: true, guess: freshGuess(), client: 'x' };
      expect([lookup, await client.errorCode(PAYER_TAKE, variables, payments)]).toEqual([lookup, code]);
    }
    const rows = await db.knex('identity.otp_guards').select('customer_ref');
    expect(rows.map((row) => row.customer_ref)).not.toContain('cust-gone');
    expect(
      await client.errorCode(PAYER_TAKE, { alias: 'amina', livemode: true, guess: '123456', client: 'x' }, payments),
    ).toBe('VALIDATION_ERROR');
  });

  it('is for platform services only', async () => {
    for (const principal of [
      { kind: 'anonymous' },
      { kind: 'bank', id: 'alpha' },
      { kind: 'merchant', id: 'mer_1' },
    ] as Principal[]) {
      const variables = { alias: 'amina', livemode: true, guess: freshGuess(), client: 'x' };
      expect(await client.errorCode(PAYER_TAKE, variables, principal)).toMatch(
        /UNAUTHORIZED|FORBIDDEN|INVALID_BANK_KEY/,
      );
    }
  });
});
