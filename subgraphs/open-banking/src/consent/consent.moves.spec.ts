import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { OutboxEvent } from '@gateway/events';
import { newId } from '@gateway/kernel';
import { Credential } from '@gateway/vault';
import { migrateVault } from '@gateway/vault';
import { migrations } from '../migrations';
import { OPEN_BANKING_SCHEMA } from '../service';
import { TppEntity } from '../tpp/tpp.entity';
import { ConsentEntity } from './consent.entity';
import { countConsentOtpFailure, createConsent, loadConsent, moveConsent } from './consent.moves';

/** The one writer against a real database: conditional moves, refusals, events in the same transaction. */
describe('moveConsent', () => {
  let db: Database;
  let orm: ServiceOrm;
  const tppId = newId('tpp');

  const newConsent = async (): Promise<string> => {
    const now = new Date();
    const id = newId('consent');
    await orm.em.fork().transactional(async (tx) => {
      createConsent(
        tx,
        {
          id,
          tppId,
          livemode: true,
          bankHandle: 'bank1',
          scopes: ['accounts:read'],
          redirectUri: 'https://tpp.example/cb',
          state: 's',
          codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          codeChallengeMethod: 'S256',
          expiryDays: 1,
          expiresAt: new Date(now.getTime() + 86_400_000),
        },
        now,
      );
    });
    return id;
  };
  const events = (id: string) => db.knex('open_banking.outbox').where({ aggregate_id: id }).orderBy('sequence');

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, {
      schema: OPEN_BANKING_SCHEMA,
      entities: [TppEntity, ConsentEntity, OutboxEvent, Credential],
      migrations,
      foreignSchemas: ['auth'],
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

  it('creates without an event, and each later move stamps its status time and writes its event', async () => {
    const id = await newConsent();
    expect(await events(id)).toEqual([]);
    const now = new Date();
    await orm.em.fork().transactional(async (tx) => {
      const consent = (await loadConsent(tx, id))!;
      expect(await moveConsent(tx, consent, 'customer_approved', now, { accountIds: ['acc_1'] })).toBe(true);
      expect(await moveConsent(tx, consent, 'revoked', now, { revokedBy: 'bank' })).toBe(true);
    });
    const row = await db.knex('open_banking.consents').where({ id }).first();
    expect(row).toMatchObject({ status: 'REVOKED', account_ids: ['acc_1'], revoked_by: 'bank' });
    expect(row.authorised_at).toEqual(now);
    expect(row.revoked_at).toEqual(now);
    expect((await events(id)).map((event) => [event.kind, event.data.status])).toEqual([
      ['consent.granted', 'AUTHORISED'],
      ['consent.revoked', 'REVOKED'],
    ]);
    expect((await events(id))[1].data.revoked_by).toBe('bank');
  });

  it('refuses a move that is not in the table, and writes nothing', async () => {
    const id = await newConsent();
    const consent = (await loadConsent(orm.em.fork(), id))!;
    await expect(moveConsent(orm.em.fork(), consent, 'created', new Date())).rejects.toMatchObject({
      extensions: { code: 'VALIDATION_ERROR' },
    });
    expect((await db.knex('open_banking.consents').where({ id }).first()).status).toBe('AWAITING_AUTHORISATION');
    expect(await events(id)).toEqual([]);
  });

  it('lets exactly one of two racing moves win, with one event', async () => {
    const id = await newConsent();
    const [a, b] = [(await loadConsent(orm.em.fork(), id))!, (await loadConsent(orm.em.fork(), id))!];
    const now = new Date();
    const results = await Promise.all([
      orm.em.fork().transactional((tx) => moveConsent(tx, a, 'customer_approved', now)),
      orm.em.fork().transactional((tx) => moveConsent(tx, b, 'customer_rejected', now)),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const status = (await db.knex('open_banking.consents').where({ id }).first()).status;
    expect(status).toBe(results[0] ? 'AUTHORISED' : 'REJECTED');
    // Either move writes its one event: consent.granted, or the router's internal.consent.rejected.
    expect(await events(id)).toHaveLength(1);
  });

  it('counts wrong OTPs atomically while the consent awaits, and not after', async () => {
    const id = await newConsent();
    const now = new Date();
    const counts = await Promise.all(
      [1, 2, 3].map(() => orm.em.fork().transactional((tx) => countConsentOtpFailure(tx, id, now))),
    );
    expect(counts.sort()).toEqual([1, 2, 3]);
    const consent = (await loadConsent(orm.em.fork(), id))!;
    expect(consent.otpFailures).toBe(3);
    await orm.em.fork().transactional((tx) => moveConsent(tx, consent, 'customer_rejected', now));
    expect(await orm.em.fork().transactional((tx) => countConsentOtpFailure(tx, id, now))).toBeNull();
    expect((await loadConsent(orm.em.fork(), id))!.otpFailures).toBe(3);
  });

  it('rolls the move back with the transaction that fails after it', async () => {
    const id = await newConsent();
    const consent = (await loadConsent(orm.em.fork(), id))!;
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await moveConsent(tx, consent, 'customer_approved', new Date());
        throw new Error('later step failed');
      }),
    ).rejects.toThrow('later step failed');
    expect((await db.knex('open_banking.consents').where({ id }).first()).status).toBe('AWAITING_AUTHORISATION');
    expect(await events(id)).toEqual([]);
  });
});
