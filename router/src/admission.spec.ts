import { createLogger, GatewayError, OperationLabels, type Principal } from '@gateway/kernel';
import { createAdmission, type AdmissionOptions } from './admission';
import type { LimitCharge } from './rate-limit-charge';
import type { RequestLabels } from './router-context';

const merchant: Principal = { kind: 'merchant', id: 'mer_admit' };
const LIMIT_HEADERS = { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': '60' };

/** An admission whose credential check and rate limits answer as each test says, recording what they were asked. */
function admissionWith(caller: () => Principal | Promise<Principal>, charge: LimitCharge = { headers: LIMIT_HEADERS }) {
  const counted: string[] = [];
  const charged: string[] = [];
  const logged: unknown[] = [];
  const logger = createLogger('admission-spec', 'silent');
  logger.error = ((entry: unknown) => void logged.push(entry)) as never;
  const options: AdmissionOptions = {
    authenticate: caller,
    charges: {
      operation: async (_principal, operation) => {
        charged.push(operation.rootFields.join(','));
        return charge;
      },
    },
    metrics: { countAdmission: (outcome) => void counted.push(outcome), operations: new OperationLabels() },
    logger,
  };
  return { admit: createAdmission(options), counted, charged, logged };
}

const labels = (): RequestLabels => ({ operation: 'unknown' });

describe('the admission stage', () => {
  it("admits an authenticated caller's operation with its rate-limit headers and names the operation's label", async () => {
    const { admit, counted, charged } = admissionWith(async () => merchant);
    const requestLabels = labels();
    const admission = await admit(
      {},
      '10.0.0.1',
      { query: 'query Banks { banks { handle } }' },
      'req_a',
      requestLabels,
    );
    expect(admission).toEqual({ principal: merchant, headers: LIMIT_HEADERS });
    expect(requestLabels.operation).toBe('Banks');
    expect(charged).toEqual(['banks']);
    expect(counted).toEqual(['accepted']);
  });

  it('refuses NUL characters, an unknown operation name and a subscription over HTTP with VALIDATION_ERROR, charging nothing', async () => {
    const { admit, charged, counted } = admissionWith(async () => merchant);
    const refusals = await Promise.all([
      admit({}, '10.0.0.1', { query: '{ banks(handle: "a\u0000") { handle } }' }, 'req_a', labels()),
      admit({}, '10.0.0.1', { query: 'query A { banks { handle } }', operationName: 'B' }, 'req_a', labels()),
      admit({}, '10.0.0.1', { query: 'subscription { paymentUpdated { id } }' }, 'req_a', labels()),
    ]);
    expect(refusals.map((admission) => [admission.refusal?.code, admission.refusal?.detail])).toEqual([
      ['VALIDATION_ERROR', 'text must not contain the NUL character (U+0000)'],
      ['VALIDATION_ERROR', 'Unknown operation named "B".'],
      [
        'VALIDATION_ERROR',
        'Subscriptions run over graphql-ws (a WebSocket on this same /graphql path), not over HTTP.',
      ],
    ]);
    expect(charged).toEqual([]);
    expect(counted).toEqual([]);
  });

  it("leaves a malformed document to Apollo, and a service's operation outside client rate limits", async () => {
    expect(
      await admissionWith(async () => merchant).admit({}, '10.0.0.1', { query: '{ banks {' }, 'req_a', labels()),
    ).toEqual({ principal: merchant, headers: {} });
    const service: Principal = { kind: 'service', id: 'payments' };
    const { admit, charged } = admissionWith(async () => service);
    expect(await admit({}, '10.0.0.1', { query: '{ banks { handle } }' }, 'req_a', labels())).toEqual({
      principal: service,
      headers: {},
    });
    expect(charged).toEqual([]);
  });

  it('refuses an operation over its budget with the charge headers, counted as rate_limited', async () => {
    const refusal = new GatewayError('RATE_LIMITED', 'limit of 5 requests reached; retry in 60 s');
    const { admit, counted } = admissionWith(async () => merchant, {
      headers: { ...LIMIT_HEADERS, 'retry-after': '60' },
      refusal,
    });
    expect(await admit({}, '10.0.0.1', { query: '{ banks { handle } }' }, 'req_a', labels())).toEqual({
      refusal,
      headers: { ...LIMIT_HEADERS, 'retry-after': '60' },
    });
    expect(counted).toEqual(['rate_limited']);
  });

  it("refuses a bad credential with the credential check's own code, and answers 503 when the check itself fails", async () => {
    const bad = admissionWith(async () => Promise.reject(new GatewayError('INVALID_API_KEY')));
    expect((await bad.admit({}, '10.0.0.1', { query: '{ banks { handle } }' }, 'req_a', labels())).refusal?.code).toBe(
      'INVALID_API_KEY',
    );
    expect(bad.counted).toEqual(['unauthenticated']);

    const down = admissionWith(async () => Promise.reject(new Error('connection refused')));
    const admission = await down.admit({}, '10.0.0.1', { query: '{ banks { handle } }' }, 'req_down', labels());
    expect(admission).toMatchObject({
      refusal: { code: 'SERVICE_UNAVAILABLE', detail: 'credential check unavailable' },
      headers: {},
    });
    expect(down.logged).toEqual([{ err: new Error('connection refused'), request_id: 'req_down' }]);
  });

  it('admits synchronously when nothing it asks waits, and refuses alike whether a failure is thrown or rejected', async () => {
    const query = { query: '{ banks { handle } }' };
    const now = createAdmission({
      authenticate: () => merchant,
      charges: { operation: () => ({ headers: LIMIT_HEADERS }) },
      metrics: { countAdmission: () => undefined, operations: new OperationLabels() },
      logger: createLogger('admission-spec', 'silent'),
    });
    // No promise: the edge takes it as it is (local-edge.ts, http-edge.ts).
    expect(now({}, '10.0.0.1', query, 'req_a', labels())).toEqual({ principal: merchant, headers: LIMIT_HEADERS });

    const thrown = admissionWith((() => {
      throw new GatewayError('INVALID_API_KEY');
    }) as never);
    expect(thrown.admit({}, '10.0.0.1', query, 'req_a', labels())).toMatchObject({
      refusal: { code: 'INVALID_API_KEY' },
    });
    expect(thrown.counted).toEqual(['unauthenticated']);

    // A charge that waits (a PostgreSQL store) and fails: a promise of the same refusal.
    const storeDown = createAdmission({
      authenticate: () => merchant,
      charges: { operation: () => Promise.reject(new Error('store down')) },
      metrics: { countAdmission: () => undefined, operations: new OperationLabels() },
      logger: createLogger('admission-spec', 'silent'),
    });
    const waiting = storeDown({}, '10.0.0.1', query, 'req_a', labels());
    expect(waiting).toBeInstanceOf(Promise);
    expect(await waiting).toMatchObject({ refusal: { code: 'SERVICE_UNAVAILABLE' }, headers: {} });
  });

  it("logs every admin request with the admin key's name and id, and nobody else's", async () => {
    const named: Principal = { kind: 'admin', id: 'adk_alice', name: 'alice', ip: '10.0.0.9' };
    const info: unknown[] = [];
    const query = { query: 'mutation RegisterBank { registerBank { bankKey } }' };
    await admissionWithInfo(named, info)({}, '10.0.0.9', query, 'req_admin', labels());
    await admissionWithInfo({ kind: 'admin', name: 'ADMIN_KEY' }, info)({}, '10.0.0.9', query, 'req_first', labels());
    expect(info).toEqual([
      {
        request_id: 'req_admin',
        admin_key_name: 'alice',
        admin_key_id: 'adk_alice',
        operation: 'RegisterBank',
        ip: '10.0.0.9',
      },
      { request_id: 'req_first', admin_key_name: 'ADMIN_KEY', operation: 'RegisterBank', ip: '10.0.0.9' },
    ]);
    const merchantInfo: unknown[] = [];
    await admissionWithInfo(merchant, merchantInfo)(
      {},
      '10.0.0.1',
      { query: '{ banks { handle } }' },
      'req_m',
      labels(),
    );
    expect(merchantInfo).toEqual([]);
  });
});

function admissionWithInfo(principal: Principal, info: unknown[]) {
  const logger = createLogger('admission-spec', 'silent');
  logger.info = ((entry: unknown) => void info.push(entry)) as never;
  return createAdmission({
    authenticate: async () => principal,
    charges: { operation: async () => ({ headers: LIMIT_HEADERS }) },
    metrics: { countAdmission: () => undefined, operations: new OperationLabels() },
    logger,
  });
}
