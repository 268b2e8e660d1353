import fc from 'fast-check';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { OutboxEvent } from '@gateway/events';
import { newId, type Currency } from '@gateway/kernel';
import { migrateVault } from '@gateway/vault';
import { migrations } from '../migrations';
import { InterbankObligationEntity } from '../obligation/obligation.entity';
import { SettlementCycleEntity } from './cycle.entity';
import { netPositions } from './netting';
import { SettlementPositionEntity } from './position.entity';
import { settlementRepository as repository } from './settlement.repository';

const BANKS = ['alpha', 'beta', 'gamma', 'delta', 'eps'];
const CURRENCIES: Currency[] = ['LYD', 'USD', 'EUR'];
const CYCLE = { trigger: 'api' as const, livemode: true, requestId: null, leaseMs: 60_000, skipIfEmpty: false };

describe('settlement cycles against the database', () => {
  let db: Database;
  let orm: ServiceOrm;
  const em = () => orm.em.fork();

  const insertObligations = async (
    rows: Array<{ debtor: string; creditor: string; currency: Currency; amount: bigint; livemode?: boolean }>,
  ) => {
    if (rows.length === 0) return;
    await db.knex('payments.interbank_obligations').insert(
      rows.map((row) => ({
        id: newId('obligation'),
        session_id: newId('paymentSession'),
        livemode: row.livemode ?? true,
        debtor_bank: row.debtor,
        creditor_bank: row.creditor,
        amount: row.amount.toString(),
        currency: row.currency,
        created_at: new Date(),
        settlement_cycle_id: null,
      })),
    );
  };
  const positionsOf = async (cycleId: string) =>
    (
      await db.knex('payments.settlement_positions').where({ cycle_id: cycleId }).orderBy(['currency', 'bank_handle'])
    ).map((row) => ({
      bankHandle: row.bank_handle as string,
      currency: row.currency as Currency,
      netAmount: BigInt(row.net_amount),
    }));
  const closed = async () => {
    const result = await repository.closeCycle(em(), CYCLE);
    if (result.kind !== 'closed') throw new Error(`expected a new cycle, got ${result.kind}`);
    return result;
  };

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, {
      schema: 'payments',
      // The outbox too: a closed cycle and a recorded position say so on the bus (issue 50).
      entities: [InterbankObligationEntity, SettlementCycleEntity, SettlementPositionEntity, OutboxEvent],
      migrations,
      foreignSchemas: ['auth'],
    });
  });
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  it('property: a cycle nets exactly the obligations it took, zero-sum per currency; re-running takes and moves nothing', async () => {
    const obligation = fc
      .record({
        debtor: fc.constantFrom(...BANKS),
        creditor: fc.constantFrom(...BANKS),
        currency: fc.constantFrom(...CURRENCIES),
        amount: fc.bigInt({ min: 1n, max: 10n ** 12n }),
      })
      .filter((row) => row.debtor !== row.creditor);
    await fc.assert(
      fc.asyncProperty(fc.array(obligation, { maxLength: 60 }), async (rows) => {
        await insertObligations(rows);
        const { cycle, positions } = await closed();
        expect(cycle.obligationCount).toBe(rows.length);
        const expected = netPositions(
          rows.map((row) => ({
            debtorBank: row.debtor,
            creditorBank: row.creditor,
            currency: row.currency,
            amount: row.amount,
          })),
        );
        expect(await positionsOf(cycle.id)).toEqual(expected);
        expect(positions.map((p) => p.coreReference)).toEqual(
          expected.map((p) => `${cycle.id}:${p.bankHandle}:${p.currency}`),
        );
        expect(cycle.status).toBe(expected.length > 0 ? 'SETTLING' : 'SETTLED');

        const again = await closed();
        expect([again.cycle.obligationCount, again.positions.length, again.cycle.status]).toEqual([0, 0, 'SETTLED']);
        expect(
          Number(
            (await db.knex('payments.interbank_obligations').whereNull('settlement_cycle_id').count({ n: '*' }))[0]!.n,
          ),
        ).toBe(0);
      }),
      { numRuns: 12 },
    );
  });

  it('gives each obligation to exactly one cycle when cycles are made at once', async () => {
    await insertObligations(
      Array.from({ length: 300 }, (_, i) => ({
        debtor: BANKS[i % 5]!,
        creditor: BANKS[(i + 1) % 5]!,
        currency: 'LYD' as const,
        amount: BigInt(i + 1),
      })),
    );
    const results = await Promise.all([1, 2, 3].map(() => repository.closeCycle(em(), CYCLE)));
    const made = results.filter((result) => result.kind === 'closed');
    // However the database orders them: one cycle takes everything, the others take nothing.
    expect(made.map((result) => result.cycle.obligationCount).sort((a, b) => b - a)).toEqual([
      300,
      ...Array(made.length - 1).fill(0),
    ]);
    const perObligation = await db
      .knex('payments.interbank_obligations')
      .whereIn(
        'settlement_cycle_id',
        made.map((result) => result.cycle.id),
      )
      .count({ n: '*' });
    expect(Number(perObligation[0]!.n)).toBe(300);
  });

  it('a live cycle never takes a test obligation, and a test cycle takes test obligations only', async () => {
    await insertObligations([
      { debtor: 'alpha', creditor: 'beta', currency: 'LYD', amount: 700n, livemode: false },
      { debtor: 'beta', creditor: 'alpha', currency: 'LYD', amount: 200n, livemode: true },
    ]);
    const live = await closed();
    expect([live.cycle.livemode, live.cycle.obligationCount]).toEqual([true, 1]);
    expect(live.positions.map((p) => [p.bankHandle, p.netAmount, p.livemode])).toEqual(
      expect.arrayContaining([
        ['alpha', 200n, true],
        ['beta', -200n, true],
      ]),
    );
    const test = await repository.closeCycle(em(), { ...CYCLE, livemode: false });
    if (test.kind !== 'closed') throw new Error(`expected a test cycle, got ${test.kind}`);
    expect([test.cycle.livemode, test.cycle.obligationCount]).toEqual([false, 1]);
    expect(test.positions.map((p) => [p.bankHandle, p.netAmount, p.livemode])).toEqual(
      expect.arrayContaining([
        ['alpha', -700n, false],
        ['beta', 700n, false],
      ]),
    );
    expect((await closed()).cycle.obligationCount).toBe(0);
  });

  it('the scheduled run makes no empty cycle, nor one right after another', async () => {
    expect((await repository.closeCycle(em(), { ...CYCLE, trigger: 'schedule', skipIfEmpty: true })).kind).toBe(
      'skipped',
    );
    await insertObligations([{ debtor: 'alpha', creditor: 'beta', currency: 'USD', amount: 5n }]);
    expect(
      (
        await repository.closeCycle(em(), {
          ...CYCLE,
          trigger: 'schedule',
          skipIfEmpty: true,
          skipIfOpenedWithinMs: 60_000,
        })
      ).kind,
    ).toBe('skipped');
    expect(
      (await repository.closeCycle(em(), { ...CYCLE, trigger: 'schedule', skipIfEmpty: true, skipIfOpenedWithinMs: 0 }))
        .kind,
    ).toBe('closed');
  });

  it('records a position once (of two runners, one), and moves the cycle by the transition table', async () => {
    await insertObligations([{ debtor: 'alpha', creditor: 'beta', currency: 'LYD', amount: 900n }]);
    const { cycle, positions } = await closed();
    const [debtor, creditor] = positions;
    expect([debtor!.bankHandle, debtor!.netAmount, creditor!.bankHandle, creditor!.netAmount]).toEqual([
      'alpha',
      -900n,
      'beta',
      900n,
    ]);
    const now = new Date();
    const booked = { status: 'SETTLED' as const, settledAt: now };
    const twice = await Promise.all(
      [1, 2].map(() =>
        repository.record(
          em(),
          debtor!,
          { leaseToken: debtor!.leaseToken, status: 'PENDING', attempts: 0 },
          booked,
          now,
        ),
      ),
    );
    expect(twice.sort()).toEqual([false, true]);
    expect((await em().findOneOrFail(SettlementCycleEntity, { id: cycle.id })).status).toBe('SETTLING');

    expect(
      await repository.record(
        em(),
        creditor!,
        { leaseToken: creditor!.leaseToken, status: 'PENDING', attempts: 0 },
        { status: 'FAILED', lastError: 'INSUFFICIENT_FUNDS' },
        now,
      ),
    ).toBe(true);
    expect((await em().findOneOrFail(SettlementCycleEntity, { id: cycle.id })).status).toBe('PARTIALLY_FAILED');
    expect(
      await repository.record(
        em(),
        creditor!,
        { leaseToken: creditor!.leaseToken, status: 'FAILED', attempts: 1 },
        booked,
        now,
      ),
    ).toBe(true);
    const settled = await em().findOneOrFail(SettlementCycleEntity, { id: cycle.id });
    expect([settled.status, settled.settledAt]).toEqual(['SETTLED', now]);
    // An executed cycle is never settled again: nothing is due and a stale record is refused.
    expect(
      await repository.record(
        em(),
        creditor!,
        { leaseToken: creditor!.leaseToken, status: 'FAILED', attempts: 1 },
        booked,
        now,
      ),
    ).toBe(false);
    expect(
      (await repository.claimDue(em(), new Date(Date.now() + 3_600_000), 60_000, 100)).filter(
        (key) => key.cycleId === cycle.id,
      ),
    ).toEqual([]);
  });

  it('hands positions whose lease ran out to one taker only', async () => {
    await insertObligations([{ debtor: 'gamma', creditor: 'delta', currency: 'EUR', amount: 42n }]);
    const { cycle } = await closed();
    expect(
      (await repository.claimDue(em(), new Date(), 60_000, 100)).filter((key) => key.cycleId === cycle.id),
    ).toEqual([]);
    const later = new Date(Date.now() + 61_000);
    const takers = await Promise.all([1, 2].map(() => repository.claimDue(em(), later, 60_000, 100)));
    const taken = takers.flat().filter((key) => key.cycleId === cycle.id);
    expect(taken.map((key) => key.bankHandle).sort()).toEqual(['delta', 'gamma']);
  });

  it("fences a runner that was taken over: its renewals, its settlement account and its record are refused, the new owner's are not", async () => {
    await insertObligations([{ debtor: 'epsilon', creditor: 'zeta', currency: 'LYD', amount: 77n }]);
    const { positions } = await closed();
    const stale = positions[0]!;
    const owner = { leaseToken: stale.leaseToken, status: stale.status, attempts: stale.attempts };
    expect(owner.leaseToken).toEqual(expect.any(String));
    // While it holds the position, the closing runner renews it.
    expect(await repository.renewLease(em(), stale, owner, new Date(Date.now() - 1))).toBe(true);
    const [taken] = (await repository.claimDue(em(), new Date(), 60_000, 100)).filter(
      (key) => key.cycleId === stale.cycleId && key.bankHandle === stale.bankHandle,
    );
    expect(taken).toBeDefined();
    const current = (await repository.findPosition(em(), stale))!;
    expect(current.leaseToken).not.toBe(owner.leaseToken);

    const booked = { status: 'SETTLED' as const, settledAt: new Date() };
    expect(await repository.renewLease(em(), stale, owner, new Date(Date.now() + 60_000))).toBe(false);
    expect(await repository.fixIban(em(), stale, owner, 'LY00STALE')).toBe(false);
    expect(await repository.record(em(), stale, owner, booked, new Date())).toBe(false);
    expect(await repository.findPosition(em(), stale)).toMatchObject({
      status: 'PENDING',
      attempts: 0,
      settlementIban: null,
      leaseToken: current.leaseToken,
    });

    const successor = { leaseToken: current.leaseToken, status: current.status, attempts: current.attempts };
    expect(await repository.renewLease(em(), stale, successor, new Date(Date.now() + 60_000))).toBe(true);
    expect(await repository.record(em(), stale, successor, booked, new Date())).toBe(true);
  });
});
