import { createHash, randomBytes } from 'node:crypto';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { OutboxEvent } from '@gateway/events';
import { newId, sha256Hex } from '@gateway/kernel';
import { Credential, migrateVault, vault } from '@gateway/vault';
import { ConsentEntity } from '../consent/consent.entity';
import { createConsent, loadConsent, moveConsent } from '../consent/consent.moves';
import { migrations } from '../migrations';
import { OPEN_BANKING_SCHEMA } from '../service';
import { TppEntity } from '../tpp/tpp.entity';
import { issueAuthorizationCode } from './authorization-code';
import { TokenService } from './token.service';

const REDIRECT = 'https://tpp.example/cb';
const MINUTE = 60_000;

/** The two grants against a real database: single use under races, replays, rotation, consent states. */
describe('TokenService', () => {
  let db: Database;
  let orm: ServiceOrm;
  const tokens = new TokenService();
  const tppId = newId('tpp');

  /** An approved consent with its code, as the consent page's approval leaves it. */
  const approved = async (now = new Date()) => {
    const verifier = randomBytes(32).toString('base64url');
    const id = newId('consent');
    const code = await orm.em.fork().transactional(async (tx) => {
      createConsent(
        tx,
        {
          id,
          tppId,
          livemode: true,
          bankHandle: 'bank1',
          scopes: ['accounts:read', 'balances:read'],
          redirectUri: REDIRECT,
          state: 's',
          codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
          codeChallengeMethod: 'S256',
          expiryDays: 30,
          expiresAt: new Date(now.getTime() + 30 * 86_400_000),
        },
        now,
      );
      await tx.flush();
      const consent = (await loadConsent(tx, id))!;
      await moveConsent(tx, consent, 'customer_approved', now, { accountIds: [] });
      return issueAuthorizationCode(tx, consent, now);
    });
    return {
      consentId: id,
      code,
      verifier,
      exchange: { code, redirectUri: REDIRECT, consentId: id, codeVerifier: verifier },
    };
  };
  const rowOf = (raw: string) =>
    db
      .knex('auth.credentials')
      .where({ hash: sha256Hex(raw) })
      .first();
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { extensions?: { code?: string; detail?: string } }) => error.extensions,
    );

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
      redirect_uris: JSON.stringify([REDIRECT]),
      webhook_secret_sealed: 'x',
      created_at: new Date(),
    });
  });
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  it('redeems a code for a pair in its grant, issued to the TPP, hashed only', async () => {
    const grant = await approved();
    const now = new Date();
    const pair = await tokens.exchangeCode(orm.em.fork(), grant.exchange, now);
    expect(pair).toEqual({
      accessToken: expect.stringMatching(/^at_[0-9A-Za-z]{32}$/),
      refreshToken: expect.stringMatching(/^rt_[0-9A-Za-z]{32}$/),
      tokenType: 'Bearer',
      expiresIn: 900,
      scope: 'accounts:read balances:read',
    });
    const code = await rowOf(grant.code);
    const access = await rowOf(pair.accessToken);
    const refresh = await rowOf(pair.refreshToken);
    expect(code.used_at).toEqual(now);
    for (const row of [access, refresh])
      expect(row).toMatchObject({
        owner_id: grant.consentId,
        client_id: tppId,
        family: code.family,
        scopes: ['accounts:read', 'balances:read'],
      });
    expect(access.kind).toBe('ob_access_token');
    expect(new Date(access.expires_at).getTime()).toBe(now.getTime() + 15 * MINUTE);
    expect(new Date(refresh.expires_at).getTime()).toBe(now.getTime() + 90 * 86_400_000);
    const stored = JSON.stringify(await db.knex('auth.credentials').where({ family: code.family }));
    for (const raw of [grant.code, pair.accessToken, pair.refreshToken]) expect(stored).not.toContain(raw);
  });

  it('serves exactly one of two concurrent redemptions of a code; the loser is a replay and revokes the grant', async () => {
    const grant = await approved();
    const results = await Promise.allSettled([1, 2].map(() => tokens.exchangeCode(orm.em.fork(), grant.exchange)));
    const served = results.filter((result) => result.status === 'fulfilled');
    expect(served).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected')!;
    expect(refused.reason.extensions.code).toBe('INVALID_GRANT');
    const pair = served[0]!.value;
    expect(await vault.verify(orm.em.fork(), 'ob_access_token', pair.accessToken)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
    expect(await vault.verify(orm.em.fork(), 'ob_refresh_token', pair.refreshToken)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
  });

  it('does not spend a code on a wrong verifier, and refuses an expired one without touching the consent', async () => {
    const grant = await approved();
    expect(
      await failure(
        tokens.exchangeCode(orm.em.fork(), { ...grant.exchange, codeVerifier: randomBytes(32).toString('base64url') }),
      ),
    ).toMatchObject({
      code: 'PKCE_INVALID',
    });
    expect((await rowOf(grant.code)).used_at).toBeNull();
    expect((await tokens.exchangeCode(orm.em.fork(), grant.exchange)).tokenType).toBe('Bearer');

    const late = await approved();
    expect(
      await failure(tokens.exchangeCode(orm.em.fork(), late.exchange, new Date(Date.now() + 61_000))),
    ).toMatchObject({
      code: 'INVALID_GRANT',
      detail: 'code has expired',
    });
    expect((await db.knex('open_banking.consents').where({ id: late.consentId }).first()).status).toBe('AUTHORISED');
  });

  it('rotates a refresh token once: of two concurrent refreshes one wins, the other is a replay that revokes the grant', async () => {
    const grant = await approved();
    const first = await tokens.exchangeCode(orm.em.fork(), grant.exchange);
    const request = { refreshToken: first.refreshToken, consentId: grant.consentId };
    const results = await Promise.allSettled([1, 2].map(() => tokens.refresh(orm.em.fork(), request)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected')!;
    expect(refused.reason.extensions.code).toBe('TOKEN_REVOKED');
    const family = (await rowOf(grant.code)).family;
    expect(
      await db
        .knex('auth.credentials')
        .where({ family })
        .whereNull('revoked_at')
        .whereNot({ kind: 'ob_authorization_code' }),
    ).toEqual([]);
  });

  it('a refresh revokes the previous access token and keeps the grant; the new pair works on', async () => {
    const grant = await approved();
    const first = await tokens.exchangeCode(orm.em.fork(), grant.exchange);
    const second = await tokens.refresh(orm.em.fork(), {
      refreshToken: first.refreshToken,
      consentId: grant.consentId,
    });
    expect(await vault.verify(orm.em.fork(), 'ob_access_token', first.accessToken)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
    expect(await vault.verify(orm.em.fork(), 'ob_refresh_token', first.refreshToken)).toMatchObject({
      ok: false,
      reason: 'used',
    });
    expect((await vault.verify(orm.em.fork(), 'ob_access_token', second.accessToken)).ok).toBe(true);
    expect((await rowOf(second.refreshToken)).family).toBe((await rowOf(grant.code)).family);
    const third = await tokens.refresh(orm.em.fork(), {
      refreshToken: second.refreshToken,
      consentId: grant.consentId,
    });
    expect((await vault.verify(orm.em.fork(), 'ob_access_token', third.accessToken)).ok).toBe(true);
  });

  it('answers for the consent: revoked, expired (even before the expiry job) and another consent', async () => {
    const revoked = await approved();
    const pair = await tokens.exchangeCode(orm.em.fork(), revoked.exchange);
    await orm.em
      .fork()
      .transactional(async (tx) =>
        moveConsent(tx, (await loadConsent(tx, revoked.consentId))!, 'revoked', new Date(), { revokedBy: 'tpp' }),
      );
    expect(
      await failure(tokens.refresh(orm.em.fork(), { refreshToken: pair.refreshToken, consentId: revoked.consentId })),
    ).toMatchObject({ code: 'CONSENT_REVOKED' });

    const expiring = await approved();
    const later = new Date(Date.now() + 31 * 86_400_000);
    const expiredPair = await tokens.exchangeCode(orm.em.fork(), expiring.exchange);
    expect(
      await failure(
        tokens.refresh(orm.em.fork(), { refreshToken: expiredPair.refreshToken, consentId: expiring.consentId }, later),
      ),
    ).toMatchObject({
      code: 'CONSENT_EXPIRED',
    });
    // Token rules never move a consent: the expiry job does.
    expect((await db.knex('open_banking.consents').where({ id: expiring.consentId }).first()).status).toBe(
      'AUTHORISED',
    );

    const a = await approved();
    const b = await approved();
    expect(await failure(tokens.exchangeCode(orm.em.fork(), { ...a.exchange, consentId: b.consentId }))).toMatchObject({
      code: 'INVALID_GRANT',
    });
    expect(await failure(tokens.exchangeCode(orm.em.fork(), { ...a.exchange, clientId: newId('tpp') }))).toMatchObject({
      code: 'INVALID_GRANT',
    });
    expect((await tokens.exchangeCode(orm.em.fork(), { ...a.exchange, clientId: tppId })).tokenType).toBe('Bearer');
  });
});
