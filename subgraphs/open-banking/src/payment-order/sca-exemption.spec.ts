import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database, ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { newId } from '@gateway/kernel';
import { migrateVault } from '@gateway/vault';
import { createConsent } from '../consent/consent.moves';
import { authoriseConsent, openOpenBankingTestOrm } from '../testing';
import { createPaymentOrder } from './payment-order.moves';
import { scaReasonFor } from './sca-exemption';

const BANK = { scaExemptionLimit: 1_000, scaExemptionMaxCount: 5, scaExemptionCumulativeLimit: 1_000 };

/** The SCA exemption caps against a real database, and what the check costs as a consent gathers orders. */
describe('scaReasonFor', () => {
  let db: Database;
  let orm: ServiceOrm;
  const tppId = newId('tpp');

  /** An AUTHORISED consent of one account, approved at `authorisedAt`, through the consents' one writer. */
  const newConsent = async (authorisedAt: Date): Promise<{ consentId: string; accountId: string }> => {
    const consentId = newId('consent');
    await orm.em.fork().transactional(async (tx) => {
      createConsent(
        tx,
        {
          id: consentId,
          tppId,
          livemode: true,
          bankHandle: 'bank1',
          scopes: ['payments:write'],
          redirectUri: 'https://tpp.example/cb',
          state: 's',
          codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          codeChallengeMethod: 'S256',
          expiryDays: 1,
          expiresAt: new Date(Date.now() + 86_400_000),
        },
        authorisedAt,
      );
    });
    const [accountId] = await authoriseConsent(
      orm.em,
      consentId,
      [{ iban: 'LY83002048000020100120361', bankHandle: 'bank1' }],
      authorisedAt,
    );
    return { consentId, accountId: accountId! };
  };

  /** An order of the consent: exempted (no sca_url), or authorised at its sca_url at `processingAt`. */
  const newOrder = async (
    { consentId, accountId }: { consentId: string; accountId: string },
    amount: number,
    createdAt: Date,
    processingAt?: Date,
  ) => {
    const id = newId('paymentOrder');
    await orm.em.fork().transactional(async (tx) => {
      createPaymentOrder(
        tx,
        {
          id,
          tppId,
          consentId,
          livemode: true,
          sourceAccountId: accountId,
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
    await migrateVault(db);
    orm = await openOpenBankingTestOrm(db);
    await db.knex('open_banking.tpps').insert({
      id: tppId,
      name: 'T',
      mode: 'live',
      redirect_uris: JSON.stringify(['https://tpp.example/cb']),
      webhook_secret_sealed: 'x',
      created_at: new Date(),
    });
  });
  // The ORM shares the pool: closing the database ends both.
  afterAll(() => db.close());

  it('counts the exempted orders and their amounts since the last SCA: the approval, or an order authorised later', async () => {
    const consent = await newConsent(minutesAgo(60));
    const { consentId } = consent;
    expect(await reasonFor(consentId, 1_001)).toBe('above_exemption_limit');
    for (const amount of [100, 200, 300]) await newOrder(consent, amount, minutesAgo(50));
    expect(await reasonFor(consentId, 400)).toBeNull();
    expect(await reasonFor(consentId, 401)).toBe('exemption_amount_reached');
    // An order authorised at its sca_url is the last SCA: the three before it count no more.
    await newOrder(consent, 5_000, minutesAgo(45), minutesAgo(40));
    expect(await reasonFor(consentId, 1_000)).toBeNull();
    for (let i = 0; i < 5; i += 1) await newOrder(consent, 1, minutesAgo(30));
    expect(await reasonFor(consentId, 1)).toBe('exemption_count_reached');
  });

  it("reads each of the consent's orders once at most, however many it has (the soak's split hour: 600 ms at 2,000 orders before)", async () => {
    const consent = await newConsent(minutesAgo(60));
    const { consentId } = consent;
    const first = await newOrder(consent, 1, minutesAgo(30));
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
