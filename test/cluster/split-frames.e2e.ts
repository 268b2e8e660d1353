import { newSecret } from '@gateway/kernel';
import { createScratch, type Scratch } from '../../scripts/launcher/scratch';
import { SplitLayout } from '../../scripts/launcher/split-layout';
import { lyIban } from '../support/platform';

// CI runs this on PostgreSQL (the processes share it); elsewhere it runs when DATABASE_URL is given.
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl && process.env.CI === 'true') throw new Error('CI=true but DATABASE_URL is not set');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The split layout (every service its own process, no balancer): the router reaches each subgraph
 * as frames on upgraded connections (kernel's framed channel), which the subgraphs count on
 * /metrics. A subgraph restarted under it is called over HTTP until the router's channel to the
 * new process is open again, and no call fails once the subgraph is ready.
 */
(databaseUrl ? describe : describe.skip)('split layout: the router calls the subgraphs as frames', () => {
  let scratch: Scratch;
  let layout: SplitLayout;
  const adminKey = newSecret('adm_');
  const port = (service: 'rest-compat' | 'identity' | 'banks') => layout.ports[service][0]!;
  const rest = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port('rest-compat')}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const framedConnections = async (service: 'identity' | 'banks') => {
    const metrics = await (await fetch(`http://127.0.0.1:${port(service)}/metrics`)).text();
    return Number(/^subgraph_framed_connections(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1] ?? NaN);
  };

  beforeAll(async () => {
    scratch = await createScratch('frames', databaseUrl!, process.env.AMQP_URL ?? 'amqp://127.0.0.1');
    layout = await SplitLayout.plan({
      common: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: scratch.databaseUrl,
        PLATFORM_SECRET: newSecret('pls_'),
        ADMIN_KEY: adminKey,
        LOG_LEVEL: 'error',
        SHUTDOWN_DRAIN_SECONDS: '0',
        // Its bank's core_base_url is on loopback.
        PRIVATE_TARGETS: '1',
      },
    });
    await layout.start();
  }, 240_000);

  afterAll(async () => {
    await layout?.stop(10_000);
    await scratch?.drop();
  }, 60_000);

  it('registers a bank, claims and resolves an alias through rest-compat and the router, as frames, and goes on across a subgraph restart', async () => {
    const registered = await rest(
      'POST',
      '/banks',
      { 'x-service-admin-key': adminKey },
      {
        bank_handle: 'framebank',
        display_name: 'Frame Bank',
        country: 'LY',
        core_base_url: 'http://127.0.0.1:9',
        settlement_account_iban: lyIban('977', 1),
        contact_email: 'ops@framebank.ly',
        institution_code: '977',
      },
    );
    expect({ status: registered.status, error: registered.body.error }).toEqual({ status: 201, error: undefined });
    const iban = lyIban('977', 4242);
    const claimed = await rest(
      'POST',
      '/v1/identity/claim',
      { 'x-service-bank-key': registered.body.bank_key },
      {
        npt_handle: 'framed.customer',
        iban,
        customer_display_name: 'Framed Customer',
        bank_customer_ref: 'cust-4242',
      },
    );
    expect(claimed.status).toBeLessThan(300);
    const resolve = () => rest('GET', '/v1/identity/resolve?alias=framed.customer');
    expect(await resolve()).toMatchObject({ status: 200, body: { iban } });

    // The router's first call to each subgraph opened its connections; later calls ride them.
    for (
      let tries = 0;
      (await framedConnections('identity')) < 1 || (await framedConnections('banks')) < 1;
      tries += 1
    ) {
      if (tries > 100) throw new Error('no framed connection to identity and banks');
      await resolve();
      await sleep(50);
    }
    for (let n = 0; n < 5; n += 1) expect(await resolve()).toMatchObject({ status: 200, body: { iban } });

    const identity = layout.of('identity')[0]!;
    expect(await identity.terminate(10_000)).toBe(0); // GOAWAY to the router's connections, then a clean exit
    await identity.start();
    // Ready again: every call succeeds (over HTTP until the router's channel to the new process is open).
    for (let n = 0; n < 5; n += 1) expect(await resolve()).toMatchObject({ status: 200, body: { iban } });
    for (let tries = 0; (await framedConnections('identity')) < 1; tries += 1) {
      if (tries > 100) throw new Error('the router did not reopen its framed connections to identity');
      expect(await resolve()).toMatchObject({ status: 200, body: { iban } });
      await sleep(50);
    }
    expect(await resolve()).toMatchObject({ status: 200, body: { iban } });
  }, 120_000);
});
