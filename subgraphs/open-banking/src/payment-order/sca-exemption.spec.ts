import type { EntityManager } from '@mikro-orm/postgresql';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { OutboxEvent } from '@gateway/events';
import { newId } from '@gateway/kernel';
import { ConsentEntity } from '../consent/consent.entity';
import { migrations } from '../migrations';
import { OPEN_BANKING_SCHEMA } from '../service';
import { TppEntity } from '../tpp/tpp.entity';
import { PaymentOrderEntity } from './payment-order.entity';
import { createPaymentOrder } from './payment-order.moves';
import { scaReasonFor } from './sca-exemption';

const BANK = { scaExemptionLimit: 1_000, scaExemptionMaxCount: 5, scaExemptionCumulativeLimit: 1_000 };

/** The SCA exemption caps against a real database, and what the check costs as a consent gathers orders. */
describe('scaReasonFor', () => {
  let db: Database;
  let orm: ServiceOrm;
  const tppId = newId('tpp');
  const accountOf = (consentId: string) => `acc_${consentId}`;

  const newConsent = async (authorisedAt: Date): Promise<string> => {
    const id = newId('consent');
    await db.knex('open_banking.consents').insert({
      id,
      tpp_id: tppId,
      livemode: true,
      bank_handle: 'bank1',
      status: 'AUTHORISED',
      scopes: JSON.stringify(['payments:write']),
      redirect_uri: 'https://tpp.example/cb',
      state: 's',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      expiry_days: 1,
      authorised_at: authorisedAt,
      expires_at: new Date(Date.now() + 86_400_000),
      created_at: authorisedAt,
      updated_at: authorisedAt,
    });
    await db.knex('open_banking.consent_accounts').insert({
      id: accountOf(id),
      consent_id: id,
      livemode: true,
      iban: 'LY83002048000020100120361',
      bank_handle: 'bank1',
      created_at: authorisedAt,
    });
    return id;
  };

  /** An order of the consent: exempted (no sca_url), or authorised at its sca_url at `processingAt`. */
  const newOrder = async (consentId: string, amount: number, createdAt: Date, processingAt?: Date) => {
    const id = newId('paymentOrder');
    await orm.em.fork().transactional(async (tx) => {
      createPaymentOrder(
        tx,
        {
          id,
          tppId,
          consentId,
          livemode: true,
          sourceAccountId: accountOf(consentId),
          debtorIban: 'LY83002048000020100120361',
          debtorBank: 'bank1',
          destinationType: 'iban',
          creditorIban: 'LY38021001000000123456789',
          creditorBank: 'bank1',
          amount: BigInt(amount),
          currency: 'LYD',
          description: null,
          scaUrl: processingAt ? `https://gw.example/ob/sca/${id}` : null,
          requestId: null,
        },
        processingAt ? 'created_sca_required' : 'created_exempt',
        createdAt,
      );
    });
    if (processingAt)
      await db.knex('open_banking.payment_orders').where({ id }).update({ processing_at: processingAt });
    return id;
  };

  const reasonFor = (consentId: string, amount: number, tx?: (em: EntityManager) => EntityManager) =>
    orm.em
      .fork()
      .transactional((em) => scaReasonFor(tx ? tx(em) : em, { id: consentId }, { amount, currency: 'LYD' }, BANK));

  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

  beforeAll(async () => {
    db = await openTestDatabase();
    orm = await openServiceOrm(db, {
      schema: OPEN_BANKING_SCHEMA,
      entities: [TppEntity, ConsentEntity, PaymentOrderEntity, OutboxEvent],
      migrations,
    });
    await db.knex('open_banking.tpps').insert({
      id: tppId,
      name: 'T',
      mode: 'live',
      redirect_uris: JSON.stringify(['https://tpp.example/cb']),
      webhook_secret_sealed: 'x',
      created_at: new Date(),
    });
  });
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  it('counts the exempted orders and their amounts since the last SCA: the approval, or an order authorised later', async () => {
    const consentId = await newConsent(minutesAgo(60));
    expect(await reasonFor(consentId, 1_001)).toBe('above_exemption_limit');
    for (const amount of [100, 200, 300]) await newOrder(consentId, amount, minutesAgo(50));
    expect(await reasonFor(consentId, 400)).toBeNull();
    expect(await reasonFor(consentId, 401)).toBe('exemption_amount_reached');
    // An order authorised at its sca_url is the last SCA: the three before it count no more.
    await newOrder(consentId, 5_000, minutesAgo(45), minutesAgo(40));
    expect(await reasonFor(consentId, 1_000)).toBeNull();
    for (let i = 0; i < 5; i += 1) await newOrder(consentId, 1, minutesAgo(30));
    expect(await reasonFor(consentId, 1)).toBe('exemption_count_reached');
  });

  it("reads each of the consent's orders once at most, however many it has (the soak's split hour: 600 ms at 2,000 orders before)", async () => {
    const consentId = await newConsent(minutesAgo(60));
    const first = await newOrder(consentId, 1, minutesAgo(30));
    // 2,000 more exempted orders of the consent, copies of the first with ids of their own.
    await db.knex.raw(
      `insert into "open_banking"."payment_orders"
       select (jsonb_populate_record(null::"open_banking"."payment_orders", to_jsonb(o) || jsonb_build_object('id', o."id" || '_' || g))).*
       from "open_banking"."payment_orders" o, generate_series(1, 2000) g where o."id" = ?`,
      [first],
    );
    await db.knex.raw(`vacuum (analyze) "open_banking"."payment_orders"`);
    const plans: Array<{ Plan: Record<string, number> }> = [];
    const explaining = (em: EntityManager): EntityManager =>
      new Proxy(em, {
        get(target, property, receiver) {
          if (property !== 'execute') return Reflect.get(target, property, receiver);
          return async (sql: string, params: unknown[]) => {
            if (/count\(\*\)/.test(sql)) {
              const [row] = await target.execute<Array<Record<string, unknown>>>(
                `explain (analyze, buffers, format json) ${sql}`,
                params,
              );
              plans.push(...(row!['QUERY PLAN'] as typeof plans));
            }
            return target.execute(sql, params);
          };
        },
      });
    expect(await reasonFor(consentId, 1, explaining)).toBe('exemption_count_reached');
    expect(plans).toHaveLength(1);
    const { Plan: plan } = plans[0]!;
    const blocks = plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
    // Fewer blocks than orders: 79 with the consent's indexes, 154 by a scan. Before, the last SCA was
    // read again for every order of the consent: 304,230 blocks without the indexes, 4,080 with them.
    expect(blocks).toBeLessThan(2_001);
  });
});
