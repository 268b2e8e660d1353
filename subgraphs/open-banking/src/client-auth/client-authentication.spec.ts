import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { newId } from '@gateway/kernel';
import { Credential, migrateVault } from '@gateway/vault';
import { migrations } from '../migrations';
import { OPEN_BANKING_SCHEMA } from '../service';
import { TppEntity } from '../tpp/tpp.entity';
import { CLIENT_ASSERTION_TYPE } from './client-assertion';
import { audienceOf, ClientAuthenticator } from './client-authentication';
import { publicJwksRule } from '../signing-keys/jwks';
import { recordJti } from './seen-jti';

const BASE = 'https://gw.example.ly';

/** Client authentication against a real database: who may send an assertion, and replay across instances. */
describe('ClientAuthenticator', () => {
  let db: Database;
  let orm: ServiceOrm;
  let privateKey: CryptoKey;
  // Two instances of the service: the seen jtis are shared through PostgreSQL, not memory.
  const one = new ClientAuthenticator(audienceOf(BASE));
  const two = new ClientAuthenticator(audienceOf(BASE));
  const fapi2 = newId('tpp');
  const spec = newId('tpp');

  const assertion = (client: string, patch: JWTPayload = {}) =>
    new SignJWT({ iss: client, sub: client, aud: BASE, jti: randomUUID(), ...patch })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(privateKey);
  const sent = async (client: string, patch: JWTPayload = {}) => ({
    clientAssertionType: CLIENT_ASSERTION_TYPE,
    clientAssertion: await assertion(client, patch),
  });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: { extensions?: { code?: string; detail?: string } }) => error.extensions,
    );
  const insertTpp = (id: string, fields: Record<string, unknown>) =>
    db.knex('open_banking.tpps').insert({
      id,
      name: 'T',
      mode: 'live',
      redirect_uris: JSON.stringify(['https://tpp.example/cb']),
      webhook_secret_sealed: 'x',
      created_at: new Date(),
      ...fields,
    });

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, {
      schema: OPEN_BANKING_SCHEMA,
      entities: [TppEntity, Credential],
      migrations,
      foreignSchemas: ['auth'],
    });
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    const { d, ...publicJwk } = await exportJWK(pair.publicKey);
    void d;
    const jwks = publicJwksRule.parse({ keys: [{ ...publicJwk, kid: 'k1' }] });
    await insertTpp(fapi2, { security_profile: 'fapi2', jwks: JSON.stringify(jwks) });
    await insertTpp(spec, {});
  });
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  it('authenticates a fapi2 TPP by its assertion; no assertion at all is a public client (null)', async () => {
    expect((await one.authenticate(orm.em.fork(), await sent(fapi2)))?.id).toBe(fapi2);
    expect(await one.authenticate(orm.em.fork(), { clientId: spec })).toBeNull();
  });

  it('refuses a replayed assertion, on the same instance and on another one, and records each jti once', async () => {
    const replayed = await sent(fapi2);
    expect((await one.authenticate(orm.em.fork(), replayed))?.id).toBe(fapi2);
    for (const instance of [one, two])
      expect(await failure(instance.authenticate(orm.em.fork(), replayed))).toMatchObject({
        code: 'INVALID_CLIENT',
        detail: expect.stringMatching(/jti was used before/),
      });
    const jti = JSON.parse(Buffer.from(replayed.clientAssertion.split('.')[1]!, 'base64url').toString()).jti;
    expect(await db.knex('open_banking.seen_jtis').where({ jti })).toEqual([
      { kind: 'client_assertion', issuer: fapi2, jti, expires_at: expect.any(Date) },
    ]);
  });

  it('lets exactly one of two instances racing with the same assertion through', async () => {
    const raced = await sent(fapi2);
    const results = await Promise.allSettled([one, two].map((i) => i.authenticate(orm.em.fork(), raced)));
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('refuses an assertion from a spec TPP, from an unknown client, or with another assertion type', async () => {
    expect(await failure(one.authenticate(orm.em.fork(), await sent(spec)))).toMatchObject({
      code: 'INVALID_CLIENT',
      detail: expect.stringMatching(/public client \(security_profile spec\)/),
    });
    expect(await failure(one.authenticate(orm.em.fork(), await sent('tpp_nosuchclient000000000')))).toMatchObject({
      code: 'INVALID_CLIENT',
      detail: expect.stringMatching(/unknown client/),
    });
    const other = {
      ...(await sent(fapi2)),
      clientAssertionType: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer',
    };
    expect(await failure(one.authenticate(orm.em.fork(), other))).toMatchObject({ code: 'INVALID_CLIENT' });
    expect(
      await failure(one.authenticate(orm.em.fork(), { clientAssertionType: CLIENT_ASSERTION_TYPE })),
    ).toMatchObject({
      code: 'INVALID_CLIENT',
      detail: expect.stringMatching(/client_assertion: required/),
    });
  });

  it('holds iss to the client_id sent with it', async () => {
    const mismatched = { ...(await sent(fapi2)), clientId: spec };
    expect(await failure(one.authenticate(orm.em.fork(), mismatched))).toMatchObject({ code: 'INVALID_CLIENT' });
  });

  it('answers TPP_SUSPENDED to a suspended TPP holding its key, and INVALID_CLIENT once it deleted itself', async () => {
    const id = newId('tpp');
    const row = await db.knex('open_banking.tpps').where({ id: fapi2 }).first();
    await insertTpp(id, { security_profile: 'fapi2', jwks: JSON.stringify(row.jwks), status: 'SUSPENDED' });
    expect(await failure(one.authenticate(orm.em.fork(), await sent(id)))).toMatchObject({ code: 'TPP_SUSPENDED' });
    await db.knex('open_banking.tpps').where({ id }).update({ status: 'DISABLED' });
    expect(await failure(one.authenticate(orm.em.fork(), await sent(id)))).toMatchObject({
      code: 'INVALID_CLIENT',
      detail: expect.stringMatching(/unknown client/),
    });
  });

  it('forgets an issuer’s expired jtis when it records the next one, and only that issuer’s', async () => {
    const other = newId('tpp');
    const expired = new Date(Date.now() - 1000);
    await db.knex('open_banking.seen_jtis').insert([
      { kind: 'client_assertion', issuer: fapi2, jti: 'old-one', expires_at: expired },
      { kind: 'client_assertion', issuer: other, jti: 'old-other', expires_at: expired },
    ]);
    expect(await recordJti(orm.em, 'client_assertion', fapi2, 'new-one', new Date(Date.now() + 60_000))).toBe(true);
    expect(await db.knex('open_banking.seen_jtis').where({ jti: 'old-one' })).toEqual([]);
    expect(await db.knex('open_banking.seen_jtis').where({ jti: 'old-other' })).toHaveLength(1);
    expect(await recordJti(orm.em, 'client_assertion', fapi2, 'new-one', new Date(Date.now() + 60_000))).toBe(false);
  });
});
