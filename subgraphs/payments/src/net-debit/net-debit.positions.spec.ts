import { OneStatement, openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { OutboxEvent } from '@gateway/events';
import { GatewayError, newId, type Currency } from '@gateway/kernel';
import { migrateVault } from '@gateway/vault';
import { migrations } from '../migrations';
import { InterbankObligationEntity } from '../obligation/obligation.entity';
import {
  lowerByCycle,
  obligateIn,
  releaseIn,
  reserveIn,
  writeCap,
  type PositionedMovement,
} from './net-debit.positions';

describe('net debit positions: the reservation SQL', () => {
  let db: Database;
  let orm: ServiceOrm;
  const em = () => orm.em.fork();
  let bank = 0;
  /** A fresh pair of banks per test: the rows of one test never meet another's. */
  const banks = () => {
    bank += 1;
    return { debtor: `debtor${bank}`, creditor: `creditor${bank}` };
  };
  const money = (debtor: string, creditor: string, amount: number, livemode = true): PositionedMovement => ({
    livemode,
    debtorBank: debtor,
    creditorBank: creditor,
    amount: BigInt(amount),
    currency: 'LYD' as Currency,
  });
  const cap = (bankHandle: string, netDebitCap: number | null, alertThresholds = [80, 100], livemode = true) =>
    writeCap(
      em(),
      {
        bankHandle,
        currency: 'LYD',
        livemode,
        netDebitCap: netDebitCap === null ? null : BigInt(netDebitCap),
        alertThresholds,
        liquidityCover: false,
      },
      new Date(),
    );
  /** startIn's shape: a claim part (here a row that always "changes"), then the reservation conditional on it. */
  const reserve = async (id: string, movement: PositionedMovement) => {
    const statement = new OneStatement(em());
    statement.sql('claimed', `select 1`);
    reserveIn(statement, id, movement, new Date(), 'claimed');
    return statement.run();
  };
  /** The engine's ending with a credit booked: the obligation recorded in the statement of the step's record. */
  const obligated = (movement: PositionedMovement & { id: string }) => {
    const statement = new OneStatement(em());
    statement.sql('step', `select 1`);
    obligateIn(statement, movement, new Date(), 'step');
    return statement.run();
  };
  const position = async (bankHandle: string, livemode = true) => {
    const row = await db
      .knex('payments.net_debit_positions')
      .where({ bank_handle: bankHandle, currency: 'LYD', livemode })
      .first();
    return row
      ? { unsettled: BigInt(row.unsettled_net), reserved: BigInt(row.reserved), lastCycleId: row.last_cycle_id }
      : null;
  };
  const reservationsOf = (bankHandle: string) =>
    db.knex('payments.position_reservations').where({ bank_handle: bankHandle });
  const eventsOf = async (bankHandle: string) =>
    (
      await db
        .knex('payments.outbox')
        .where({ aggregate_type: 'bank_position', aggregate_id: `${bankHandle}:LYD` })
        .orderBy('sequence')
    ).map((row) => `${row.kind}@${row.data.threshold}:${row.data.position}`);

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, {
      schema: 'payments',
      entities: [InterbankObligationEntity, OutboxEvent],
      migrations,
    });
  });
  afterAll(async () => {
    await orm?.close();
    await db?.close();
  });

  it('of 50 concurrent reservations against a cap, admits exactly those that fit and refuses the rest with NET_DEBIT_CAP_EXCEEDED', async () => {
    const { debtor, creditor } = banks();
    await cap(debtor, 1000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => reserve(`ops_race${bank}_${i}`, money(debtor, creditor, 30))),
    );
    const admitted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(admitted).toHaveLength(33); // 33 x 30 = 990 <= 1000 < 34 x 30
    expect(refused).toHaveLength(17);
    for (const outcome of refused) {
      const reason = (outcome as PromiseRejectedResult).reason as GatewayError;
      expect(reason).toBeInstanceOf(GatewayError);
      expect(reason.code).toBe('NET_DEBIT_CAP_EXCEEDED');
    }
    expect(await position(debtor)).toMatchObject({ unsettled: 0n, reserved: 990n });
    expect(await reservationsOf(debtor)).toHaveLength(33);
    // A movement that fits exactly still goes in; then the position is at its cap.
    await reserve(`ops_last${bank}`, money(debtor, creditor, 10));
    expect(await position(debtor)).toMatchObject({ reserved: 1000n });
    await expect(reserve(`ops_over${bank}`, money(debtor, creditor, 1))).rejects.toMatchObject({
      code: 'NET_DEBIT_CAP_EXCEEDED',
    });
  });

  it('reserves without a condition when there is no cap, keeps the worlds apart, and leaves same-bank movements alone', async () => {
    const { debtor, creditor } = banks();
    await cap(debtor, 100, [80, 100], true); // a live cap does not bind the test world
    await reserve(`ops_test${bank}`, money(debtor, creditor, 5000, false));
    expect(await position(debtor, false)).toMatchObject({ reserved: 5000n });
    expect(await position(debtor, true)).toMatchObject({ reserved: 0n });
    await reserve(`ops_same${bank}`, money(debtor, debtor, 5000));
    expect(await position(debtor, true)).toMatchObject({ reserved: 0n });
    expect((await reservationsOf(debtor)).map((row) => row.movement_id)).toEqual([`ops_test${bank}`]);
  });

  it('writes nothing when the claim changed nothing', async () => {
    const { debtor, creditor } = banks();
    await cap(debtor, 10);
    const statement = new OneStatement(em());
    statement.sql('claimed', `select 1 where false`);
    reserveIn(statement, `ops_none${bank}`, money(debtor, creditor, 50), new Date(), 'claimed');
    expect(await statement.run()).toMatchObject({
      claimed: 0,
      position_reserved: 0,
      position_reservation: 0,
      over_cap: 0,
    });
    expect(await reservationsOf(debtor)).toHaveLength(0);
  });

  it('turns a reservation into the obligation once, releases one once, and a release after the obligation moves nothing', async () => {
    const { debtor, creditor } = banks();
    await cap(debtor, 1000);
    const paid = { id: `ops_paid${bank}`, ...money(debtor, creditor, 300) };
    const failed = { id: `ops_failed${bank}`, ...money(debtor, creditor, 200) };
    await reserve(paid.id, paid);
    await reserve(failed.id, failed);
    expect(await position(debtor)).toMatchObject({ unsettled: 0n, reserved: 500n });
    const obligate = () => obligated(paid);
    const release = (id: string) => {
      const statement = new OneStatement(em());
      releaseIn(statement, id, new Date());
      return statement.run();
    };
    // The engine and the credit-confirmed callback both get there: one obligation, one conversion.
    expect(await obligate()).toMatchObject({ obligation: 1, reservation_used: 1, debtor_obligated: 1 });
    expect(await obligate()).toMatchObject({ obligation: 0, reservation_used: 0, debtor_obligated: 0 });
    expect(await position(debtor)).toMatchObject({ unsettled: 300n, reserved: 200n });
    expect(await position(creditor)).toMatchObject({ unsettled: -300n, reserved: 0n });
    expect(await release(paid.id)).toMatchObject({ reservation_released: 0, position_released: 0 });
    expect(await release(failed.id)).toMatchObject({ reservation_released: 1, position_released: 1 });
    expect(await release(failed.id)).toMatchObject({ reservation_released: 0, position_released: 0 });
    expect(await position(debtor)).toMatchObject({ unsettled: 300n, reserved: 0n });
    expect(await reservationsOf(debtor)).toHaveLength(0);
    // The position (300) counts against the cap like a reservation: 700 more fit, 701 do not.
    await expect(reserve(`ops_big${bank}`, money(debtor, creditor, 701))).rejects.toMatchObject({
      code: 'NET_DEBIT_CAP_EXCEEDED',
    });
    await reserve(`ops_fits${bank}`, money(debtor, creditor, 700));
  });

  it('a settlement cycle lowers both banks by their net in it and names the cycle', async () => {
    const { debtor, creditor } = banks();
    const paid = { id: `ops_cycle${bank}`, ...money(debtor, creditor, 400) };
    await reserve(paid.id, paid);
    await obligated(paid);
    const back = { id: `ops_back${bank}`, ...money(creditor, debtor, 150) };
    await obligated(back);
    expect(await position(debtor)).toMatchObject({ unsettled: 250n });
    const cycleId = newId('settlementCycle');
    await db
      .knex('payments.interbank_obligations')
      .whereIn('session_id', [paid.id, back.id])
      .update({ settlement_cycle_id: cycleId });
    await orm.em.fork().transactional((tx) => lowerByCycle(tx, cycleId, true, new Date()));
    expect(await position(debtor)).toMatchObject({ unsettled: 0n, reserved: 0n, lastCycleId: cycleId });
    expect(await position(creditor)).toMatchObject({ unsettled: 0n, lastCycleId: cycleId });
  });

  it('what a bank is owed makes no room until a cycle pays it: a cycle never lifts a position above its cap', async () => {
    // The chaos run's finding (seed 32055): a bank owed 2,988 had 6,988 reserved against a cap of
    // 4,000 (position 4,000); the cycle paid it the 2,988 and its position read 6,988.
    const { debtor, creditor } = banks();
    await cap(debtor, 4000);
    const owedToIt = { id: `ops_owed${bank}`, ...money(creditor, debtor, 2988) };
    await obligated(owedToIt);
    expect(await position(debtor)).toMatchObject({ unsettled: -2988n, reserved: 0n });
    await reserve(`ops_r1${bank}`, money(debtor, creditor, 4000));
    await expect(reserve(`ops_r2${bank}`, money(debtor, creditor, 1))).rejects.toMatchObject({
      code: 'NET_DEBIT_CAP_EXCEEDED',
    });
    const cycleId = newId('settlementCycle');
    await db
      .knex('payments.interbank_obligations')
      .where({ session_id: owedToIt.id })
      .update({ settlement_cycle_id: cycleId });
    await orm.em.fork().transactional((tx) => lowerByCycle(tx, cycleId, true, new Date()));
    const after = (await position(debtor))!;
    expect(after).toMatchObject({ unsettled: 0n, reserved: 4000n });
    expect(after.unsettled + after.reserved).toBeLessThanOrEqual(4000n);
  });

  it('sends one text whatever the amount: a value in the text would be prepared again on every connection for every amount (issue 52)', async () => {
    const { debtor, creditor } = banks();
    await cap(debtor, 1_000_000, [50, 80]);
    const texts: string[] = [];
    const listen = (query: { sql: string }) => void texts.push(query.sql);
    const knex = orm.em.getKnex();
    const textsOf = async (amount: number) => {
      texts.length = 0;
      knex.on('query', listen);
      const id = `ops_text${bank}_${amount}`;
      await reserve(id, money(debtor, creditor, amount));
      await obligated({ ...money(debtor, creditor, amount), id });
      await reserve(`${id}_released`, money(debtor, creditor, amount));
      const statement = new OneStatement(em());
      releaseIn(statement, `${id}_released`, new Date());
      await statement.run();
      knex.off('query', listen);
      return [...texts];
    };
    const first = await textsOf(396);
    const second = await textsOf(2_505);
    expect(first).toHaveLength(4); // reserve, obligate, reserve, release
    expect(first.join('\n')).not.toMatch(/\b396\b/);
    expect(second).toEqual(first);
  });

  it('records each alert threshold once per crossing, not once per payment, for the bank and for the operator', async () => {
    const { debtor, creditor } = banks();
    await cap(debtor, 1000, [50, 80, 100]);
    for (let i = 0; i < 9; i += 1) await reserve(`ops_alert${bank}_${i}`, money(debtor, creditor, 100));
    expect(await eventsOf(debtor)).toEqual([
      'liquidity.threshold_reached@50:500',
      'liquidity.threshold_reached@80:800',
    ]);
    await reserve(`ops_alert${bank}_9`, money(debtor, creditor, 100));
    expect((await eventsOf(debtor)).slice(2)).toEqual([
      'liquidity.threshold_reached@100:1000',
      'liquidity.cap_reached@100:1000',
    ]);
    // Refused at the cap: nothing recorded. Back under and up again: a new crossing, recorded again.
    await expect(reserve(`ops_alert${bank}_x`, money(debtor, creditor, 100))).rejects.toMatchObject({
      code: 'NET_DEBIT_CAP_EXCEEDED',
    });
    const statement = new OneStatement(em());
    releaseIn(statement, `ops_alert${bank}_9`, new Date());
    await statement.run();
    await reserve(`ops_alert${bank}_10`, money(debtor, creditor, 100));
    expect(await eventsOf(debtor)).toHaveLength(6);
    const [event] = await db
      .knex('payments.outbox')
      .where({ aggregate_id: `${debtor}:LYD` })
      .orderBy('sequence');
    expect(event.id).toMatch(/^evt_/);
    // The same crossings for the operator: an event of its own (its id, audience and aggregate), the same data.
    const bankEvents = await db
      .knex('payments.outbox')
      .where({ aggregate_id: `${debtor}:LYD` })
      .orderBy('sequence');
    const operatorEvents = await db
      .knex('payments.outbox')
      .where({ aggregate_id: `operator:${debtor}:LYD` })
      .orderBy('sequence');
    expect(bankEvents.map((row) => row.audience)).toEqual(Array(6).fill(`bank:${debtor}`));
    expect(operatorEvents.map((row) => row.audience)).toEqual(Array(6).fill('operator:platform'));
    expect(operatorEvents.map((row) => [row.kind, row.data])).toEqual(bankEvents.map((row) => [row.kind, row.data]));
    expect(new Set([...bankEvents, ...operatorEvents].map((row) => row.id)).size).toBe(12);
    expect(event.data).toEqual({
      bank_handle: debtor,
      currency: 'LYD',
      livemode: true,
      threshold: 50,
      position: 500,
      net_debit_cap: 1000,
    });
  });
});
