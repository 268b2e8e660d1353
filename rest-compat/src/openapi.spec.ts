import { createLogger } from '@gateway/kernel';
import { EVAL_PROBE } from './openapi/docs-page';
import type { OpenApiDocument } from './openapi/document';
import { WEBHOOK_EVENTS, webhookEnvelopeSchema } from './openapi/webhook-events';
import { ROUTES } from './routes';
import { startRestCompat, type RunningRestCompat } from './server';
import { call } from './spec-support';

const CREDENTIAL_HEADERS = [
  'X-Service-Admin-Key',
  'X-Service-Bank-Key',
  'X-Session-Token',
  'X-Consent-Id',
  'X-Service-Internal-Key',
];

describe('/openapi.json and /docs', () => {
  let rest: RunningRestCompat;
  let document: OpenApiDocument;

  beforeAll(async () => {
    // The documents come from the route table alone: no router is needed to serve them.
    rest = await startRestCompat({
      routerUrl: 'http://127.0.0.1:9',
      logger: createLogger('rest-compat-test', 'silent'),
    });
    const answer = await call(rest.url, 'GET', '/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
    document = answer.body;
  });
  afterAll(async () => {
    await rest.stop();
  });

  it('is an OpenAPI 3.1 document listing every route of the table with its success and error responses', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    const listed = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(listed.sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());
    expect(listed).toEqual(
      expect.arrayContaining([
        'POST /banks',
        'GET /banks/{handle}',
        'PATCH /banks/{handle}',
        'POST /merchants',
        'POST /ob/tpps',
        'GET /v1/identity/resolve',
        'DELETE /v1/identity/aliases/{handle}',
      ]),
    );

    const operationIds = new Set<string>();
    for (const route of ROUTES) {
      const operation = document.paths[route.path]![route.method.toLowerCase()]!;
      operationIds.add(operation.operationId);
      expect(Object.keys(operation.responses)).toContain(String(route.status));
      for (const code of route.errors)
        expect(Object.values(operation.responses).some((r) => r.description.includes(code))).toBe(true);
      // Every failure documents the spec's error body.
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) >= 400)
          expect(response.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
      }
      // Every path template parameter is declared as a required path parameter.
      for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
        expect(operation.parameters).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
    }
    expect(operationIds.size).toBe(ROUTES.length);
  });

  it('describes request bodies from the zod schemas, closed to unknown fields', () => {
    const register = document.paths['/banks']!.post!;
    const schema = register.requestBody!.content['application/json']!.schema;
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(schema.required).toEqual(
      expect.arrayContaining([
        'bank_handle',
        'display_name',
        'country',
        'core_base_url',
        'settlement_account_iban',
        'contact_email',
        'institution_code',
      ]),
    );
    expect(schema.required).not.toContain('internal_key');
    const created = register.responses['201']!.content!['application/json']!.schema;
    expect(Object.keys(created.properties)).toEqual(
      expect.arrayContaining(['bank_handle', 'bank_key', 'internal_key', 'capabilities']),
    );

    const resolve = document.paths['/v1/identity/resolve']!.get!;
    expect(resolve.parameters).toEqual(
      expect.arrayContaining(
        ['alias', 'phone', 'iban'].map((name) => expect.objectContaining({ name, in: 'query', required: false })),
      ),
    );
  });

  it('declares a security scheme for each credential header, and which routes need which', () => {
    const schemes = Object.values(document.components.securitySchemes);
    for (const header of CREDENTIAL_HEADERS)
      expect(schemes).toContainEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: header }));
    expect(schemes).toContainEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(document.paths['/banks']!.post!.security).toEqual([{ adminKey: [] }]);
    expect(document.paths['/banks/{handle}']!.get!.security).toEqual([{ bankKey: [] }, { adminKey: [] }]);
    expect(document.paths['/v1/identity/resolve']!.get!.security).toEqual([]);
    expect(document.components.schemas.Error).toMatchObject({
      properties: { error: { required: ['code', 'message', 'detail', 'request_id'] } },
    });
  });

  it('declares the optional Idempotency-Key header on creating payment routes only', async () => {
    const idempotencyKey = { $ref: '#/components/parameters/Idempotency-Key' };
    expect(document.paths['/payments/sessions']!.post!.parameters).toContainEqual(idempotencyKey);
    expect(document.paths['/payments/sessions']!.get!.parameters).not.toContainEqual(idempotencyKey);
    expect(document.components.parameters['Idempotency-Key']).toMatchObject({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
    });
    expect(document.paths['/payments/sessions']!.post!.responses['422']!.description).toContain(
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(document.paths['/payments/sessions']!.post!.responses['409']!.description).toContain(
      'IDEMPOTENCY_KEY_IN_USE',
    );
    // The costs of GraphQL documents are documented (issue 13), in the description /docs shows first.
    expect(document.info.description).toMatch(/## Limits[\s\S]*every alias counts[\s\S]*at most 30 aliases/);
  });

  it('documents the checkout page path: its JSON view for clients asking for JSON, the HTML page for browsers', async () => {
    const view = document.paths['/pay/{session_id}']!.get!;
    expect(view.security).toEqual([]);
    expect(view.parameters).toContainEqual(expect.objectContaining({ name: 'session_id', in: 'path', required: true }));
    const json = view.responses['200']!.content!['application/json']!.schema;
    expect(json).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['session_id', 'status', 'otp_attempts_left', 'redirect_to', 'failure_code', 'completed_at'],
    });
    expect(json.properties.status.enum).toEqual(expect.arrayContaining(['PENDING', 'COMPLETED', 'FAILED', 'EXPIRED']));
    expect(view.responses['200']!.content!['text/html']!.schema).toMatchObject({
      type: 'string',
      description: expect.stringContaining('checkout page'),
    });
    expect(view.responses['404']!.description).toContain('SESSION_NOT_FOUND');
  });

  it('documents the mandate surface: Idempotency-Key on create and charge, the public confirm page and form post, our two additions, every refusal code', async () => {
    const idempotencyKey = { $ref: '#/components/parameters/Idempotency-Key' };
    const paths = document.paths;
    expect(paths['/recurring/mandates']!.post!.parameters).toContainEqual(idempotencyKey);
    expect(paths['/recurring/mandates/{mandate_id}/charge']!.post!.parameters).toContainEqual(idempotencyKey);
    expect(paths['/recurring/mandates']!.get!.parameters).not.toContainEqual(idempotencyKey);
    expect(Object.keys(paths['/recurring/mandates']!.post!.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '404', '422']),
    );
    expect(paths['/recurring/mandates']!.post!.requestBody!.content!['application/json']!.schema).toMatchObject({
      additionalProperties: false,
      properties: { interval: { enum: ['weekly', 'monthly', 'yearly'] } },
    });
    expect(Object.keys(paths['/recurring/mandates/{mandate_id}']!.delete!.responses)).toContain('204');
    const charge = paths['/recurring/mandates/{mandate_id}/charge']!.post!;
    for (const code of ['MANDATE_NOT_ACTIVE', 'MANDATE_LIMIT_EXCEEDED', 'MANDATE_NOT_STARTED'])
      expect(charge.responses['422']!.description).toContain(code);
    expect(charge.responses['404']!.description).toContain('MANDATE_NOT_FOUND');

    const confirm = paths['/recurring/mandates/{mandate_id}/confirm']!.post!;
    expect(confirm.security).toEqual([]);
    expect(Object.keys(confirm.requestBody!.content!)).toEqual(
      expect.arrayContaining(['application/json', 'application/x-www-form-urlencoded']),
    );
    expect(confirm.responses['401']!.description).toContain('OTP_INVALID');
    expect(confirm.responses['409']!.description).toContain('MANDATE_NOT_PENDING_CONFIRMATION');
    const page = paths['/mandates/{mandate_id}/confirm']!.get!;
    expect(page.security).toEqual([]);
    expect(page.responses['200']!.content!['text/html']).toBeDefined();
    expect(page.responses['200']!.content!['application/json']!.schema.properties.customer_alias.description).toContain(
      'Masked',
    );

    expect(paths['/recurring/mandates/{mandate_id}/revoke']!.post!.description).toMatch(/^Our addition/);
    expect(paths['/recurring/mandates/{mandate_id}/test-clock/advance']!.post!.description).toMatch(
      /^Our addition, test mode only/,
    );
  });

  // Fuzzer findings (issue 13): answers the document did not list.
  it('documents 401 on public routes (a credential sent is checked) and 403 on authenticated ones (another principal)', () => {
    for (const route of ROUTES) {
      const responses = document.paths[route.path]![route.method.toLowerCase()]!.responses;
      expect([route.path, responses['401']?.description]).toEqual([
        route.path,
        expect.stringContaining('UNAUTHORIZED'),
      ]);
      if (route.auth.length)
        expect([route.path, responses['403']?.description]).toEqual([route.path, expect.stringContaining('FORBIDDEN')]);
    }
    expect(document.paths['/pay/{session_id}/status']!.get!.responses['403']!.description).toContain('FORBIDDEN');
    expect(document.paths['/v1/identity/resolve']!.get!.responses['401']!.description).toContain('UNAUTHORIZED');
  });

  it("documents a page's HTML error pages (404, 503, and the page's own) beside the JSON error", () => {
    const pages: Record<string, string[]> = {
      '/pay/{session_id}': ['404', '503'],
      '/ob/sca/{payment_order_id}': ['404', '503'],
      '/ob/auth/{consent_id}': ['404', '503', '400'],
      // The authorization endpoint (issue 49): a refused request_uri is a page too; nothing there is "not found".
      '/ob/auth': ['503', '400', '401', '409'],
    };
    const own = (path: string) => pages[path]!.includes('400');
    for (const path of Object.keys(pages)) {
      const responses = document.paths[path]!.get!.responses;
      for (const status of pages[path]!)
        expect([path, status, Object.keys(responses[status]!.content!)]).toEqual([
          path,
          status,
          ['application/json', 'text/html'],
        ]);
      if (!own(path)) expect(Object.keys(responses['400']!.content!)).toEqual(['application/json']);
    }
  });

  it('gives every operation examples: the request body, the success answer, and the spec error body of each refusal code', () => {
    for (const route of ROUTES) {
      const operation = document.paths[route.path]![route.method.toLowerCase()]!;
      const where = `${route.method} ${route.path}`;
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
        expect([where, type, media.example]).toEqual([where, type, expect.any(Object)]);
      if (route.response)
        expect([where, operation.responses[String(route.status)]!.content!['application/json']!.example]).toEqual([
          where,
          expect.any(Object),
        ]);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const examples = response.content!['application/json']!.examples!;
        // One example per code the description names, each the spec's error body with that code.
        for (const code of response.description.match(/[A-Z][A-Z_]+(?=:)/g)!) {
          expect([where, status, examples[code]?.value]).toEqual([
            where,
            status,
            { error: expect.objectContaining({ code, request_id: expect.stringMatching(/^req_/) }) },
          ]);
        }
      }
    }
    // Values a reader recognises, not "string".
    const created = document.paths['/payments/sessions']!.post!;
    expect(created.requestBody!.content['application/json']!.example).toMatchObject({ amount: 12500, currency: 'LYD' });
    expect(created.responses['201']!.content!['application/json']!.example).toMatchObject({
      session_id: expect.stringMatching(/^ops_/),
      status: 'PENDING',
    });
  });

  it('names its server, licence and contact, and describes every tag', () => {
    expect(document.servers).toEqual([{ url: rest.url, description: expect.any(String) }]);
    expect(document.info.license.name).toBeTruthy();
    expect(document.info.contact.name).toBeTruthy();
    expect(document.tags.map((tag) => tag.name).sort()).toEqual(
      [...new Set(ROUTES.map((route) => route.tag)), 'Events'].sort(),
    );
    for (const tag of document.tags) expect(tag.description.length).toBeGreaterThan(20);
  });

  it("opens the docs' sidebar with Payments: what a merchant integrates first, the bank-operator routes after", () => {
    const order = document.tags.map((tag) => tag.name);
    expect(order.slice(0, 3)).toEqual(['Payments', 'Checkout', 'Refunds']);
    for (const operatorTag of ['Banks', 'Bank callbacks', 'Merchants', 'Settlement', 'Operations'])
      expect(order.indexOf(operatorTag)).toBeGreaterThan(order.indexOf('Payments'));
    expect(order.indexOf('Events')).toBe(order.indexOf('Webhooks') + 1);
    expect(order.slice(-4)).toEqual(['Banks', 'Bank callbacks', 'Settlement', 'Operations']);
  });

  it('answers /favicon.ico with a small icon, cached for a day', async () => {
    const answer = await fetch(`${rest.url}/favicon.ico`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/x-icon');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=86400');
    const body = Buffer.from(await answer.arrayBuffer());
    expect([...body.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    expect(body.length).toBeLessThan(5_000);
  });

  it('lists every webhook event (OpenAPI 3.1 webhooks) with its envelope schema, signature headers and an example', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual(Object.keys(WEBHOOK_EVENTS).sort());
    expect(Object.keys(document.webhooks)).toEqual(
      expect.arrayContaining([
        'payment.completed',
        'payment.failed',
        'payment.expired',
        'refund.completed',
        'mandate.activated',
        'mandate.charge.failed',
        'consent.granted',
        'payment_order.pending_sca',
      ]),
    );
    const completed = document.webhooks['payment.completed']!.post;
    expect(completed.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PaymentCompletedEvent',
    });
    const schema = document.components.schemas.PaymentCompletedEvent!;
    expect(schema.required).toEqual(expect.arrayContaining(['id', 'event', 'created_at', 'livemode', 'data']));
    expect(schema.properties.event).toMatchObject({ const: 'payment.completed' });
    expect(schema.properties.data.required).toEqual(
      expect.arrayContaining(['session_id', 'reference', 'settlement_type', 'creditor_bank']),
    );
    expect(completed.requestBody.content['application/json'].example).toMatchObject({
      event: 'payment.completed',
      data: { status: 'COMPLETED', session_id: expect.stringMatching(/^ops_/) },
    });
    expect(completed.parameters).toEqual(
      expect.arrayContaining([
        { $ref: '#/components/parameters/webhook-signature' },
        { $ref: '#/components/parameters/X-Service-Signature' },
      ]),
    );
    for (const { post } of Object.values(document.webhooks)) {
      expect(post.operationId).toMatch(/Webhook$/);
      expect(Object.keys(post.responses)).toEqual(['200', '401']);
      expect(
        webhookEnvelopeSchema(post.summary).safeParse(post.requestBody.content['application/json'].example).error,
      ).toBeUndefined();
    }
  });

  it('serves /docs as a page of local assets: Scalar from npm with a year of cache, scripts only from this origin', async () => {
    const answer = await call(rest.url, 'GET', '/docs');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
    const scripts = [...answer.text.matchAll(/<script src="([^"]+)"/g)].map((match) => match[1]!);
    expect(scripts).toEqual([
      // "-noeval": the bundle with zod's eval probe answered in advance (docs-page.ts).
      expect.stringMatching(/^\/docs\/assets\/scalar-api-reference-[\d.]+-noeval\/standalone\.js$/),
      expect.stringMatching(/^\/docs\/assets\/\w+\/start\.js$/),
    ]);
    // Nothing from elsewhere: the machine may be offline.
    expect(answer.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const bundle = await fetch(`${rest.url}${scripts[0]}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const text = await bundle.text();
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(text).not.toMatch(EVAL_PROBE);
    expect((await fetch(`${rest.url}/docs/assets/scalar-api-reference-0.0.0/standalone.js`)).status).toBe(404);
  });
});
