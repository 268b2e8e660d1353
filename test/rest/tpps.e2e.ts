import { startTestPlatform, type TestPlatform } from '../support/platform';
import { call, expectError, responseSchemaOf } from '@gateway/rest-compat/testing';

/** POST /ob/tpps end to end: rest-compat -> router -> open-banking subgraph. */
describe('REST TPP registration', () => {
  let t: TestPlatform;
  let base: string;

  beforeAll(async () => {
    t = await startTestPlatform();
    base = t.platform.restUrl;
  });
  afterAll(async () => {
    await t.stop();
  });

  it('registers a TPP: 201 with tpp_id, tpp_access_token and webhook_secret', async () => {
    const answer = await call(base, 'POST', '/ob/tpps', {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { name: 'Budget App', redirect_uris: ['https://budget.example/callback'] },
    });
    expect(answer.status).toBe(201);
    expect(responseSchemaOf('POST', '/ob/tpps').safeParse(answer.body).error).toBeUndefined();
    expect(answer.body).toMatchObject({
      tpp_id: expect.stringMatching(/^tpp_/),
      tpp_access_token: expect.stringMatching(/^tpk_/),
      webhook_secret: expect.stringMatching(/^whsec_/),
      name: 'Budget App',
      redirect_uris: ['https://budget.example/callback'],
      webhook_url: null,
    });

    // The token works at once, here through rest-compat's /graphql proxy.
    const graphql = await call(base, 'POST', '/graphql', {
      headers: { authorization: `Bearer ${answer.body.tpp_access_token}` },
      body: { query: 'query($id: ID!) { tpp(id: $id) { name } }', variables: { id: answer.body.tpp_id } },
    });
    expect(graphql.body).toEqual({ data: { tpp: { name: 'Budget App' } } });
  });

  it('refuses registration without the admin key (401) and bad redirect URIs (400)', async () => {
    expectError(
      await call(base, 'POST', '/ob/tpps', { body: { name: 'X', redirect_uris: ['https://x.example/cb'] } }),
      401,
      'UNAUTHORIZED',
    );
    const invalid = await call(base, 'POST', '/ob/tpps', {
      headers: { 'x-service-admin-key': t.adminKey },
      body: { name: 'X', redirect_uris: ['not a url'] },
    });
    expectError(invalid, 400, 'VALIDATION_ERROR');
    expect(invalid.body.error.detail).toMatch(/^redirect_uris/);
  });
});
