import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { newId } from '@gateway/kernel';
import { migrateVault } from '@gateway/vault';
import { MerchantEntity } from '../merchant/merchant.entity';
import { migrations } from '../migrations';
import { PaymentSessionEntity } from './session.entity';
import { loadSession, newSession, openCheckoutCheck } from './session.moves';

/**
 * openCheckoutCheck: what an authorization reads (the session, its merchant's status) and the
 * OTP check it counts, in one statement (issue 32: statements per payment). The count follows
 * the rules the separate UPDATE had, and a SUSPENDED merchant's session counts none.
 */
describe('the checkout authorization opening statement', () => {
  let db: Database;
  let orm: ServiceOrm;
  let statements: string[] = [];

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, {
      schema: 'payments',
      entities: [PaymentSessionEntity, MerchantEntity],
      migrations,
      foreignSchemas: ['auth'],
    });
    db.knex.on('query', (query: { sql: string }) => statements.push(query.sql));
  });
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  const seed = async (options: { merchant?: 'ACTIVE' | 'SUSPENDED'; expiresInMs?: number; status?: string } = {}) => {
    const em = orm.em.fork();
    const merchant = Object.assign(new MerchantEntity(), {
      id: newId('merchant'),
      name: 'Shop',
      mode: 'live',
      status: options.merchant ?? 'ACTIVE',
      webhookSecretSealed: 'sealed',
    });
    const now = new Date();
    const session = newSession(
      {
        id: newId('paymentSession'),
        merchantId: merchant.id,
        livemode: true,
        amount: 1_000n,
        currency: 'LYD',
        destinationType: 'alias',
        destinationValue: 'shop@bank',
        creditorIban: 'LY83002048000020100120361',
        creditorBank: 'bank',
        description: null,
        reference: 'ref',
        metadata: { order: '1' },
        redirectUrl: null,
        webhookUrl: null,
        checkoutUrl: 'http://checkout',
        expiresAt: new Date(now.getTime() + (options.expiresInMs ?? 60_000)),
      },
      now,
    );
    if (options.status) session.status = options.status as PaymentSessionEntity['status'];
    await em.insert(MerchantEntity, merchant);
    await em.insert(PaymentSessionEntity, session);
    return session.id;
  };
  const checksOf = async (id: string) => (await loadSession(orm.em.fork(), id))!.checkoutChecksInFlight;

  it('answers the session as loadSession reads it, with the merchant status, and counts the check: one statement', async () => {
    const id = await seed();
    const before = await loadSession(orm.em.fork(), id);
    statements = [];
    const opened = await openCheckoutCheck(orm.em.fork(), id, new Date());
    expect(statements).toHaveLength(1);
    expect(opened).toEqual({ session: before, merchantStatus: 'ACTIVE', checking: true });
    expect(opened!.session).toBeInstanceOf(PaymentSessionEntity);
    expect(await checksOf(id)).toBe(1);
    // A second authorization at once counts a second check.
    expect((await openCheckoutCheck(orm.em.fork(), id, new Date()))!.checking).toBe(true);
    expect(await checksOf(id)).toBe(2);
  });

  it("counts no check for a SUSPENDED merchant's session, one past its expires_at, or one no longer PENDING", async () => {
    const suspended = await seed({ merchant: 'SUSPENDED' });
    expect(await openCheckoutCheck(orm.em.fork(), suspended, new Date())).toMatchObject({
      merchantStatus: 'SUSPENDED',
      checking: false,
    });
    const late = await seed({ expiresInMs: -1 });
    expect(await openCheckoutCheck(orm.em.fork(), late, new Date())).toMatchObject({ checking: false });
    const processing = await seed({ status: 'PROCESSING' });
    expect(await openCheckoutCheck(orm.em.fork(), processing, new Date())).toMatchObject({
      session: { status: 'PROCESSING' },
      checking: false,
    });
    for (const id of [suspended, late, processing]) expect(await checksOf(id)).toBe(0);
  });

  it('answers null for an unknown session', async () => {
    expect(await openCheckoutCheck(orm.em.fork(), newId('paymentSession'), new Date())).toBeNull();
  });
});
