import { newId } from '@gateway/kernel';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Regressions of what the fuzz run found (issue 13) that need the whole platform; the layer's and
 * the document's own are in rest-compat's specs (layer.spec.ts, openapi.spec.ts).
 */
describe('fuzz findings', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform();
  });
  afterAll(() => t?.stop());

  const page = (path: string, headers: Record<string, string>) =>
    fetch(`${t.platform.restUrl}${path}`, { headers: { accept: 'text/html', ...headers } });

  // A browser with a stray Authorization header (basic auth in front of a site) got the 503 "try again" page: the router refused the credential.
  it.each([
    ['/pay/', newId('paymentSession')],
    ['/ob/auth/', newId('consent')],
    ['/ob/sca/', newId('paymentOrder')],
  ])(
    '%s page: a stray credential header does not turn into 503; the page reads its view anonymously',
    async (prefix, id) => {
      const strays: Array<Record<string, string>> = [
        { authorization: 'Basic dXNlcjpwYXNz' },
        { authorization: 'Bearer mk_test_junk' },
        { 'x-service-admin-key': 'junk' },
      ];
      for (const headers of strays) {
        const answer = await page(`${prefix}${id}`, headers);
        expect([headers, answer.status]).toEqual([headers, 404]);
        expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      }
    },
  );

  // PostgreSQL text cannot hold U+0000: a path parameter or cursor with %00 reached a query and answered 500.
  it('a NUL character in a path parameter, a query parameter or a GraphQL variable is 400 VALIDATION_ERROR, on REST and GraphQL', async () => {
    const bank = await t.seed.registerBank();
    const merchant = await t.seed.createMerchant();
    const deleted = await t.rest('DELETE', '/v1/identity/aliases/%00', {
      headers: { 'x-service-bank-key': bank.bankKey },
    });
    expect([deleted.status, deleted.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const listed = await t.rest('GET', '/webhooks/deliveries?cursor=%00', {
      headers: { authorization: `Bearer ${merchant.apiKey}` },
    });
    expect([listed.status, listed.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const graphql = await fetch(t.platform.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${merchant.apiKey}` },
      body: JSON.stringify({
        query: 'query S($id: ID!) { paymentSession(id: $id) { id } }',
        variables: { id: 'ops_\u0000' },
      }),
    });
    const body = (await graphql.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors[0]!.extensions.code).toBe('VALIDATION_ERROR');
  });
});
