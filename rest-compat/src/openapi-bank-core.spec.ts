import { createLogger } from '@gateway/kernel';
import { startRestCompat, type RunningRestCompat } from './server';
import { call } from './spec-support';

describe('/openapi/bank-core.json: the bank core interface the gateway calls', () => {
  let rest: RunningRestCompat;
  let document: any;

  beforeAll(async () => {
    // Built from the client's schemas alone: no router is needed to serve it.
    rest = await startRestCompat({
      routerUrl: 'http://127.0.0.1:9',
      logger: createLogger('rest-compat-test', 'silent'),
    });
    const answer = await call(rest.url, 'GET', '/openapi/bank-core.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    document = answer.body;
  });
  afterAll(async () => {
    await rest.stop();
  });

  it("is an OpenAPI 3.1 document of the spec's five bank core calls, each with the internal key and X-Request-Id", () => {
    expect(document.openapi).toBe('3.1.0');
    const listed = Object.entries(document.paths as Record<string, object>).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(listed.sort()).toEqual([
      'GET /accounts/{iban}',
      'GET /accounts/{iban}/transactions',
      'POST /accounts/credit',
      'POST /accounts/debit',
      'POST /customers/verify',
    ]);
    expect(document.components.securitySchemes.internalKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Service-Internal-Key' }),
    );
    expect(document.components.parameters.XRequestId).toMatchObject({ name: 'X-Request-Id', in: 'header' });
    for (const methods of Object.values(document.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(methods)) {
        expect(operation.security).toEqual([{ internalKey: [] }]);
        expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/XRequestId' });
      }
    }
    expect(document['x-answer-within-seconds']).toBe(10);
    expect(document.info.description).toContain('10 s');
  });

  it('describes the debit and credit request exactly as sent: the spec fields, closed', () => {
    for (const path of ['/accounts/debit', '/accounts/credit']) {
      expect(document.paths[path].post.requestBody.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/MovementRequest',
      });
    }
    const request = document.components.schemas.MovementRequest;
    expect(Object.keys(request.properties).sort()).toEqual(['amount', 'currency', 'description', 'iban', 'reference']);
    expect(request.required.sort()).toEqual(['amount', 'currency', 'description', 'iban', 'reference']);
    expect(request.additionalProperties).toBe(false);
    expect(request.properties.amount.type).toBe('integer');
    expect(document.components.schemas.VerifyRequest).toMatchObject({
      required: ['customer_ref', 'otp'],
      additionalProperties: false,
    });
  });

  it('describes the answers as accepted, with their liberal variants and what each status means', () => {
    const { MovementAnswer, AccountAnswer, StatementAnswer, CoreError } = document.components.schemas;
    expect(MovementAnswer.required ?? []).toEqual([]);
    expect(Object.keys(MovementAnswer.properties)).toEqual(
      expect.arrayContaining(['transaction_id', 'id', 'booked_at', 'reference', 'amount', 'currency', 'iban']),
    );
    expect(AccountAnswer.required.sort()).toEqual(['balance', 'currency']);
    expect(Object.keys(AccountAnswer.properties)).toEqual(
      expect.arrayContaining(['holder_name', 'account_holder', 'name']),
    );
    const [bare, wrapped] = StatementAnswer.anyOf;
    expect(bare.type).toBe('array');
    expect(wrapped.required).toEqual(['transactions']);
    expect(Object.keys(bare.items.properties)).toEqual(
      expect.arrayContaining([
        'booking_date',
        'date',
        'booked_at',
        'credit_debit_indicator',
        'transaction_id',
        'id',
        'reference',
        'ref',
        'end_to_end_id',
      ]),
    );
    expect(bare.items.required.sort()).toEqual(['amount', 'currency']);
    expect(CoreError.properties.error.anyOf).toEqual(expect.arrayContaining([{ type: 'string' }]));

    const debit = document.paths['/accounts/debit'].post.responses;
    expect(Object.keys(debit)).toEqual(expect.arrayContaining(['2XX', '3XX', '409', '422', '4XX', '5XX']));
    expect(debit['2XX'].description).toMatch(/^Booked, whatever the body/);
    expect(debit['409'].description).toContain('DUPLICATE_REFERENCE');
    expect(debit['422'].description).toContain('INSUFFICIENT_FUNDS');
    expect(debit['5XX'].description).toMatch(/retried with the same reference/);
    expect(document.paths['/customers/verify'].post.responses['401'].description).toContain('INVALID_INTERNAL_KEY');
    expect(document['x-error-codes']).toMatchObject({
      booked: ['DUPLICATE_REFERENCE', 'DUPLICATE', 'ALREADY_PROCESSED'],
      insufficientFunds: ['INSUFFICIENT_FUNDS'],
      meaning: { booked: expect.any(String), refused: expect.any(String), unknownAndReplayed: expect.any(String) },
    });
  });

  it('is linked from the REST document /docs renders', async () => {
    expect((await call(rest.url, 'GET', '/openapi.json')).body.info.description).toContain('(/openapi/bank-core.json)');
  });
});
