import type { BankCorePool } from '@gateway/bank-core-client';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { OutboxEvent } from '@gateway/events';
import type { Directory, OtpGuard } from '@gateway/federation';
import { createLogger, GatewayError, newId } from '@gateway/kernel';
import { Credential, migrateVault } from '@gateway/vault';
import { ConsentEntity } from '../consent/consent.entity';
import { migrations } from '../migrations';
import { OPEN_BANKING_SCHEMA } from '../service';
import { TppEntity } from '../tpp/tpp.entity';
import { PaymentOrderEntity } from './payment-order.entity';
import { createPaymentOrder, loadPaymentOrder } from './payment-order.moves';
import { DEFAULT_SCA_AUTHORISATION_GRACE_MS, SCA_EXPIRY_MARGIN_MS, ScaService } from './sca.service';

const TTL_MS = 60_000;
const RIGHT_OTP = '123456';

/**
 * The SCA deadline against a real database, without timers: the payer's bank answers when the
 * test says so, and the expiry job is run with the clock it is given. The deadline is when the
 * customer's OTP arrives; the bank (or the machine) being slow never fails an order authorised in time.
 */
describe('ScaService: the SCA deadline and the expiry job', () => {
  let db: Database;
  let orm: ServiceOrm;
  let sca: ScaService;
  const tppId = newId('tpp');
  const consentId = newId('consent');
  const accountId = newId('account');
  /** The bank's pending OTP checks, answered by the test. */
  let checks: Array<{ otp: string; answer: () => void; refuse: () => void }>;
  let verified: Promise<void>;
  let onCheck: () => void;

  const nextCheck = () => {
    verified = new Promise<void>((resolve) => (onCheck = resolve));
  };
  const cores = {
    for: () => ({
      verifyCustomer: ({ otp }: { otp: string }) =>
        new Promise((resolve, reject) => {
          checks.push({
            otp,
            answer: () => (otp === RIGHT_OTP ? resolve({ verified: true }) : reject(new GatewayError('OTP_INVALID'))),
            refuse: () => reject(new GatewayError('CBS_TIMEOUT')),
          });
          onCheck();
        }),
    }),
  } as unknown as BankCorePool;
  const otpGuard = {
    check: async (_customer: unknown, _otp: string, verify: () => Promise<unknown>) => void (await verify()),
  } as unknown as OtpGuard;
  const directory = {
    alias: async () => ({ bankCustomerRef: 'cust_1', bankHandle: 'bank1', iban: 'LY00', status: 'ACTIVE' }),
    bank: async () => ({ handle: 'bank1' }),
  } as unknown as Directory;

  const newOrder = async (createdAt = new Date()): Promise<string> => {
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
          amount: 150_000n,
          currency: 'LYD',
          description: null,
          scaUrl: `https://gw.example/ob/sca/${id}`,
          requestId: null,
        },
        'created_sca_required',
        createdAt,
      );
    });
    return id;
  };
  const order = async (id: string) => (await loadPaymentOrder(orm.em.fork(), id))!;
  const movementRequests = async (id: string) =>
    (await db.knex('open_banking.outbox').where({ aggregate_id: id, kind: 'movement.requested' })).length;
  /** authorize, started; resolves once the bank has been asked, with the answer to come. */
  const authorizing = async (id: string, otp = RIGHT_OTP) => {
    nextCheck();
    const answer = sca.authorize(orm.em.fork(), id, otp, null).then(
      (value) => ({ ok: value }),
      (error: unknown) => ({ error: error as GatewayError }),
    );
    await Promise.race([verified, answer]);
    // Wrapped: an async function's answer would wait for the promise it returns.
    return { result: answer };
  };
  /** The job's clock: this long after now. */
  const later = (ms: number) => new Date(Date.now() + ms);
  /** An order whose SCA deadline is 2 s away: an OTP sent now arrives in time. */
  const dueSoon = () => newOrder(new Date(Date.now() - TTL_MS + 2_000));
  /** The job's clock once that deadline and the expiry margin have passed. */
  const afterDeadline = () => later(2_000 + SCA_EXPIRY_MARGIN_MS + 1_000);

  beforeAll(async () => {
    db = await openTestDatabase();
    await migrateVault(db);
    orm = await openServiceOrm(db, {
      schema: OPEN_BANKING_SCHEMA,
      entities: [TppEntity, ConsentEntity, PaymentOrderEntity, OutboxEvent, Credential],
      migrations,
      foreignSchemas: ['auth'],
    });
    const now = new Date();
    await db.knex('open_banking.tpps').insert({
      id: tppId,
      name: 'T',
      mode: 'live',
      redirect_uris: JSON.stringify(['https://tpp.example/cb']),
      webhook_secret_sealed: 'x',
      created_at: now,
    });
    await db.knex('open_banking.consents').insert({
      id: consentId,
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
      expires_at: new Date(now.getTime() + 86_400_000),
      created_at: now,
      updated_at: now,
    });
    await db.knex('open_banking.consent_accounts').insert({
      id: accountId,
      consent_id: consentId,
      livemode: true,
      iban: 'LY83002048000020100120361',
      bank_handle: 'bank1',
      created_at: now,
    });
    sca = new ScaService(
      { scaTtlMs: TTL_MS, platformSecret: 'secret' },
      directory,
      cores,
      otpGuard,
      createLogger('test', 'silent'),
    );
  });
  beforeEach(() => {
    checks = [];
  });
  // Each test counts what the job expires: none leaves an order for the next.
  afterEach(() => sca.expireDue(orm.em, later(TTL_MS + DEFAULT_SCA_AUTHORISATION_GRACE_MS + 3_600_000)));
  afterAll(async () => {
    await orm.close();
    await db.close();
  });

  it('the right OTP that arrived in time passes SCA when the bank answers after the deadline: the expiry job waits for it', async () => {
    const id = await dueSoon();
    const { result: answer } = await authorizing(id);
    // The deadline passes while the bank checks the OTP; the job runs (past the margin).
    expect(await sca.expireDue(orm.em, afterDeadline())).toBe(0);
    expect((await order(id)).status).toBe('PENDING_SCA');
    checks[0]!.answer();
    expect(await answer).toEqual({ ok: expect.objectContaining({ id, status: 'PROCESSING' }) });
    expect(await order(id)).toMatchObject({ status: 'PROCESSING', failureCode: null });
    expect(await movementRequests(id)).toBe(1);
  });

  it('two authorisations checked at once across the deadline: exactly one moves the order', async () => {
    const id = await dueSoon();
    const { result: first } = await authorizing(id);
    const { result: second } = await authorizing(id);
    expect(await sca.expireDue(orm.em, afterDeadline())).toBe(0);
    checks[1]!.answer();
    checks[0]!.answer();
    // The same authorisation twice: both are told where the order stands; one movement.
    expect([await first, await second]).toEqual([
      { ok: expect.objectContaining({ status: 'PROCESSING' }) },
      { ok: expect.objectContaining({ status: 'PROCESSING' }) },
    ]);
    expect(await movementRequests(id)).toBe(1);
  });

  it('an order nobody authorised FAILS (SCA_EXPIRED) once the deadline and the margin passed, not before', async () => {
    const id = await newOrder();
    expect(await sca.expireDue(orm.em, later(TTL_MS - 1_000))).toBe(0);
    expect(await sca.expireDue(orm.em, later(TTL_MS + SCA_EXPIRY_MARGIN_MS + 1_000))).toBe(1);
    expect(await order(id)).toMatchObject({ status: 'FAILED', failureCode: 'SCA_EXPIRED' });
    expect(await movementRequests(id)).toBe(0);
  });

  it('an OTP arriving after the deadline is refused without asking the bank, and the order FAILS on the spot', async () => {
    const id = await newOrder(new Date(Date.now() - TTL_MS - SCA_EXPIRY_MARGIN_MS - 1_000));
    await expect(sca.authorize(orm.em.fork(), id, RIGHT_OTP, null)).rejects.toMatchObject({
      code: 'PAYMENT_ORDER_NOT_PENDING_SCA',
    });
    expect(checks).toEqual([]);
    expect(await order(id)).toMatchObject({ status: 'FAILED', failureCode: 'SCA_EXPIRED' });
  });

  it('an OTP check refused or unanswered by the bank no longer holds the expiry back', async () => {
    const wrong = await dueSoon();
    const { result: refused } = await authorizing(wrong, '000000');
    expect(await sca.expireDue(orm.em, afterDeadline())).toBe(0);
    checks[0]!.answer();
    expect(await refused).toEqual({ error: expect.objectContaining({ code: 'OTP_INVALID' }) });
    const silent = await dueSoon();
    const { result: unanswered } = await authorizing(silent);
    checks[1]!.refuse();
    expect(await unanswered).toEqual({ error: expect.objectContaining({ code: 'CBS_TIMEOUT' }) });
    expect(await sca.expireDue(orm.em, afterDeadline())).toBe(2);
    for (const id of [wrong, silent])
      expect(await order(id)).toMatchObject({ status: 'FAILED', failureCode: 'SCA_EXPIRED', scaChecksInFlight: 0 });
  });

  it('a check its process never ended (it died) holds the expiry back for the grace only; its late answer then moves nothing', async () => {
    const id = await dueSoon();
    const { result: answer } = await authorizing(id);
    expect(await sca.expireDue(orm.em, later(DEFAULT_SCA_AUTHORISATION_GRACE_MS - 1_000))).toBe(0);
    expect(await sca.expireDue(orm.em, later(DEFAULT_SCA_AUTHORISATION_GRACE_MS + 1_000))).toBe(1);
    checks[0]!.answer();
    expect(await answer).toEqual({ error: expect.objectContaining({ code: 'PAYMENT_ORDER_NOT_PENDING_SCA' }) });
    expect(await order(id)).toMatchObject({ status: 'FAILED', failureCode: 'SCA_EXPIRED' });
    expect(await movementRequests(id)).toBe(0);
  });

  it('three wrong OTPs FAIL the order (OTP_INVALID), nothing requested', async () => {
    const id = await newOrder();
    for (let i = 0; i < 3; i += 1) {
      const { result: refused } = await authorizing(id, '000000');
      checks[i]!.answer();
      expect(await refused).toEqual({ error: expect.objectContaining({ code: 'OTP_INVALID' }) });
    }
    expect(await order(id)).toMatchObject({ status: 'FAILED', failureCode: 'OTP_INVALID' });
    expect(await movementRequests(id)).toBe(0);
  });
});
