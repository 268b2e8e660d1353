import { hmacSha256Hex, newId, ROUTER_AUDIENCE, signPrincipal, type Principal } from '@gateway/kernel';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Issue 46, finding 2: a `{"kind":"service","id":"payments"}` principal sent as X-Gateway-Principal
 * to the router's /graphql and to rest-compat's answered tppWebhookTarget with a sealed secret. A
 * principal now names the service it is for and the request it travels with, lives 30 s, and the
 * router takes a service's only once; rest-compat never passes the header on (/graphql refuses a
 * client's request carrying it, REST routes send only the spec's credential headers). Run in one
 * process (in-process transport) and again over HTTP (jest.config.js, "http transport": the
 * transport of split layouts), where the services' own calls reach the router's public port.
 */
describe('a service principal from outside (issue 46)', () => {
  let t: TestPlatform;
  let tppId: string;
  let tppAccessToken: string;
  const WEBHOOK_URL = 'https://tpp.example/service-principal-hooks';
  const TARGET = 'query Target($tppId: ID!) { tppWebhookTarget(tppId: $tppId) { url sealedSecret } }';
  const service: Principal = { kind: 'service', id: 'payments' };

  beforeAll(async () => {
    t = await startTestPlatform();
    ({ tppId, tppAccessToken } = await t.seed.registerTpp({ webhook_url: WEBHOOK_URL }));
  });
  afterAll(async () => {
    await t.stop();
  });

  const ask = async (url: string, headers: Record<string, string>) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: TARGET, variables: { tppId } }),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as { data?: any; errors?: any[] } };
  };
  const edges = () => ({ router: t.platform.graphqlUrl, 'rest-compat': `${t.platform.restUrl}/graphql` });
  /** Refused with 401 UNAUTHORIZED, nothing of the target in the answer. */
  const expectRefused = (
    answer: Awaited<ReturnType<typeof ask>>,
    edge: string,
    detail: string | RegExp = expect.any(String),
  ) => {
    expect({ edge, status: answer.status }).toEqual({ edge, status: 401 });
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHORIZED', detail });
    expect(answer.body.data?.tppWebhookTarget ?? null).toBeNull();
    expect(answer.text).not.toContain('sealedSecret":"');
  };

  it('answers the probe of the review (the audience-free principal, HMAC and all) 401 at both edges', async () => {
    // Exactly what was sent: base64url({...principal, iat}) and its HMAC under the platform secret.
    const payload = Buffer.from(JSON.stringify({ ...service, iat: Date.now() })).toString('base64url');
    const probe = `${payload}.${hmacSha256Hex(t.platform.platformSecret, payload)}`;
    for (const [edge, url] of Object.entries(edges()))
      expectRefused(await ask(url, { 'x-gateway-principal': probe, 'x-request-id': newId('request') }), edge);
  });

  it('refuses at both edges a principal the router signs for a subgraph, as seen on a hop', async () => {
    // What the router sends open-banking when payments asks for a target: good there only.
    for (const [edge, url] of Object.entries(edges())) {
      const requestId = newId('request');
      const hop = signPrincipal({ ...service, ip: '127.0.0.1' }, t.platform.platformSecret, {
        audience: 'open-banking',
        requestId,
      });
      expectRefused(await ask(url, { 'x-gateway-principal': hop, 'x-request-id': requestId }), edge);
    }
  });

  it("never lets a client through rest-compat name a principal, even a platform service's own, good one", async () => {
    const requestId = newId('request');
    const own = signPrincipal(service, t.platform.platformSecret, { audience: ROUTER_AUDIENCE, requestId });
    // /graphql refuses the request; REST routes pass only the spec's credential headers on: dropped.
    const answer = await ask(edges()['rest-compat'], { 'x-gateway-principal': own, 'x-request-id': requestId });
    expectRefused(answer, 'rest-compat', /^x-gateway-principal is internal to the platform/);
    const other = await ask(edges()['rest-compat'], { 'X-Gateway-Whatever': 'x', 'x-request-id': requestId });
    expectRefused(other, 'rest-compat', /^x-gateway-whatever is internal to the platform/);
    const rest = await t.rest('GET', '/webhooks/endpoints', {
      headers: { 'x-gateway-principal': own, 'x-request-id': requestId },
    });
    expect([rest.status, rest.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
    // Never reached the router, so not spent there: a platform service's call with it is still served.
    const direct = await ask(t.platform.graphqlUrl, { 'x-gateway-principal': own, 'x-request-id': requestId });
    expect([direct.status, direct.body.errors]).toEqual([200, undefined]);
  });

  it("takes a platform service's principal at the router only for its request, and once", async () => {
    const requestId = newId('request');
    const own = signPrincipal(service, t.platform.platformSecret, { audience: ROUTER_AUDIENCE, requestId });
    expectRefused(
      await ask(t.platform.graphqlUrl, { 'x-gateway-principal': own, 'x-request-id': newId('request') }),
      'router',
      'forwarded principal was signed for another request',
    );
    const served = await ask(t.platform.graphqlUrl, { 'x-gateway-principal': own, 'x-request-id': requestId });
    expect([served.status, served.body.errors]).toEqual([200, undefined]);
    expect(served.body.data.tppWebhookTarget).toEqual({ url: WEBHOOK_URL, sealedSecret: expect.any(String) });
    // Seen on its way and sent again: refused.
    expectRefused(
      await ask(t.platform.graphqlUrl, { 'x-gateway-principal': own, 'x-request-id': requestId }),
      'router',
      'forwarded principal was already used',
    );
  });

  it("still serves the subgraphs' own calls: payments asks open-banking for a TPP's endpoint through the router", async () => {
    // GET /webhooks/endpoints as a TPP: payments reads the TPP's primary endpoint with a service call.
    const listed = await t.rest('GET', '/webhooks/endpoints', {
      headers: { authorization: `Bearer ${tppAccessToken}` },
    });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(WEBHOOK_URL);
    // And a client's own calls as ever: the router signs each hop for its subgraph.
    const bank = await t.seed.registerBank();
    const alias = await t.seed.claimAlias(bank);
    const resolved = await t.rest('GET', `/v1/identity/resolve?alias=${alias.handle}`);
    expect([resolved.status, resolved.body.iban]).toEqual([200, alias.iban]);
  });
});
