import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { deliveries, type ClaimedDelivery } from '@gateway/subgraph-payments/testing';
import { bearer, eventually, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

/**
 * Webhook attempts in flight under short leases (issue 17, "takeover in seconds"): a dispatcher
 * whose receiver hangs longer than the lease keeps its attempt (renewals; no other dispatcher
 * sends it meanwhile), and once it stops renewing (a frozen or cut-off process) the delivery
 * is taken over within seconds with a new fencing token; the stale owner's late outcome is
 * refused, so the attempt is recorded once, and the session's later events still go out after
 * it, in order.
 */
describe('webhook attempts: kept while the dispatcher lives, taken over within seconds when it stops', () => {
  const secrets = {
    PLATFORM_SECRET: 'webhook-takeover-secret-0123456789abcdef',
    ADMIN_KEY: 'webhook-takeover-admin-0123456789abcdef',
  };
  const LEASE_MS = 2_000;
  const ENGINE = { ...FAST_ENGINE, leaseMs: LEASE_MS };
  // An attempt may last far longer than the test: only the renewals keep its claim.
  const ATTEMPT_TIMEOUT_MS = 60_000;
  let db: Database;
  let first: TestPlatform;
  let second: TestPlatform | undefined;
  let bank: PaymentBank;
  let endpoint: TestWebhookReceiver;

  const deliveryRow = (eventId: string) => db.knex('payments.webhook_deliveries').where({ event_id: eventId }).first();

  beforeAll(async () => {
    db = await openTestDatabase();
    first = await startTestPlatform({
      db,
      env: secrets,
      paymentsEngine: ENGINE,
      webhookAttemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    });
    bank = await startPaymentBank(first);
    endpoint = await startTestReceiver();
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await endpoint.stop();
    await bank.sandbox.stop();
    await second?.stop();
    await first.stop();
    await db.close();
  });

  it('keeps an attempt in flight while its dispatcher renews, and hands it to another with a new token when it stops; the stale outcome is refused', async () => {
    // A second dispatcher on the same database, started before the attempt: a platform's start keeps
    // this process's event loop busy for seconds on a loaded machine, longer than a 2 s lease, and the
    // holder's renewals (in this same process) would wait behind it: a real takeover, not the one tested.
    second = await startTestPlatform({
      db,
      env: secrets,
      paymentsEngine: ENGINE,
      webhookAttemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    });
    // The first attempt at payment.initiated is answered only when the test says so.
    let answerLate!: (status: number) => void;
    const late = new Promise<number>((resolve) => (answerLate = resolve));
    endpoint.answer((_, index) => (index === 0 ? late : 200));
    const merchant = await first.seed.createMerchant({ name: 'Takeover Hooks', webhook_url: endpoint.url });
    const payer = await bank.customer();
    const payee = await bank.customer({ balance: 0 });
    const created = await first.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 2_500, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    const sessionId = created.body.session_id as string;
    const initiated = await endpoint.waitFor(
      (w) => w.envelope.event === 'payment.initiated' && w.envelope.data.session_id === sessionId,
      'the first attempt',
    );
    const eventId = initiated.envelope.id;
    await first.rest('POST', `/pay/${sessionId}/authorize`, {
      body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
    });
    const held = await deliveryRow(eventId);
    expect(held).toMatchObject({ status: 'PENDING', attempts: 0, lease_token: expect.any(String) });

    // Three lease lengths later the attempt's dispatcher still holds it, the other one beside it.
    await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
    const still = await deliveryRow(eventId);
    expect(still).toMatchObject({ status: 'PENDING', attempts: 0, lease_token: held.lease_token });
    expect(new Date(still.lease_until).getTime()).toBeGreaterThan(Date.now());
    expect(endpoint.received.filter((w) => w.envelope.id === eventId)).toHaveLength(1);
    // In order: the session's later events wait behind the attempt in flight.
    expect(
      endpoint.received.filter((w) => w.envelope.data.session_id === sessionId).map((w) => w.envelope.event),
    ).toEqual(['payment.initiated']);

    // The first dispatcher stops renewing (frozen, or cut off from the database) while its receiver still holds the request.
    const renew = deliveries.renewLease.bind(deliveries);
    jest
      .spyOn(deliveries, 'renewLease')
      .mockImplementation(async (knex, id, token, until) =>
        token === held.lease_token ? true : renew(knex, id, token, until),
      );
    // A delivered attempt is recorded on the dispatcher's next intake, or by a statement of its own soon after.
    const staleRecords: Array<Promise<{ recorded: boolean }>> = [];
    const stale = (records: ReadonlyArray<{ delivery: ClaimedDelivery }>) =>
      records.find(({ delivery }) => delivery.lease_token === held.lease_token)?.delivery.id;
    const recordAlone = deliveries.recordAttempts.bind(deliveries);
    jest.spyOn(deliveries, 'recordAttempts').mockImplementation((knex, records) => {
      const written = recordAlone(knex, records);
      const id = stale(records);
      if (id) staleRecords.push(written.then((outcomes) => outcomes.get(id)!));
      return written;
    });
    const intake = deliveries.intakeRecording.bind(deliveries);
    jest.spyOn(deliveries, 'intakeRecording').mockImplementation((knex, audience, row, lease, records) => {
      const written = intake(knex, audience, row, lease, records);
      const id = stale(records);
      if (id) staleRecords.push(written.then(({ recorded }) => recorded.get(id)!));
      return written;
    });
    const stoppedAt = Date.now();

    // Within seconds a dispatcher (the other, or this one's own poll, which sees the lapsed claim like anyone else)
    // takes the delivery over with a new token and delivers it.
    await endpoint.waitFor(
      (w) => w.envelope.id === eventId && endpoint.received.indexOf(w) > 0,
      'the attempt of the dispatcher that took over',
    );
    expect(Date.now() - stoppedAt).toBeLessThanOrEqual(5_000);
    const delivered = await eventually(async () => {
      const row = await deliveryRow(eventId);
      return row.status === 'DELIVERED' ? row : undefined;
    }, 'the delivery to be recorded by the new owner');
    expect(delivered).toMatchObject({ attempts: 1, last_status_code: 200 });

    // The stale owner's receiver answers at last: its outcome is refused.
    answerLate(200);
    await eventually(async () => (staleRecords.length ? true : undefined), "the stale owner's late outcome");
    expect((await staleRecords[0])!.recorded).toBe(false);
    const attempts = await db
      .knex('payments.webhook_attempts')
      .where({ delivery_id: delivered.id })
      .select('number', 'status_code');
    expect(attempts).toEqual([{ number: 1, status_code: 200 }]);
    expect(await deliveryRow(eventId)).toMatchObject({ status: 'DELIVERED', attempts: 1 });

    // The receiver saw the event twice (at least once), and the session's later events after it, in order.
    await endpoint.waitFor(
      (w) => w.envelope.event === 'payment.completed' && w.envelope.data.session_id === sessionId,
      'payment.completed',
    );
    expect(
      endpoint.received.filter((w) => w.envelope.data.session_id === sessionId).map((w) => w.envelope.event),
    ).toEqual(['payment.initiated', 'payment.initiated', 'payment.processing', 'payment.completed']);
  });
});
