/**
 * The platform the fuzzer runs against: started in this process as `npm start` starts it (sandbox
 * banks and the demo seed: admin key, bank keys, merchant key, TPP token), plus an Open Banking
 * grant and a payment session so the data routes have real records to address.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createLogger } from '@gateway/kernel';
import { startDemo } from '@gateway/platform';
import { startTestPlatform, type TestPlatform } from '../test/support/platform';
import type { Credentials } from './rest';
import type { Known } from './values';

export interface Fixture {
  restUrl: string;
  graphqlUrl: string;
  credentials: Credentials;
  known: Known;
  merchantId: string;
  /** Core URLs of the demo banks, put back when the fuzzer changed them (PATCH /banks with a valid key). */
  repairBanks(): Promise<void>;
  /**
   * Undoes what an operator's containment action did to the fixture's own participants, as the
   * people involved would: a suspended bank, merchant or TPP is resumed, and a bank whose
   * internal key was rotated gives its core the new key (PUT /sandbox/gateway). Otherwise every
   * later call through that bank answers what a misconfigured or suspended bank does.
   */
  repairAfter(path: string, url: string, answer: unknown): Promise<void>;
  /** A fresh Open Banking grant when the fuzzer revoked the current one. */
  renewGrant(): Promise<void>;
  stop(): Promise<void>;
}

const json = (headers: Record<string, string>) => ({
  'content-type': 'application/json',
  accept: 'application/json',
  ...headers,
});

export async function startFixture(): Promise<Fixture> {
  // No rate limits in the way: the fuzzer looks for wrong answers, not for the limiter.
  const test: TestPlatform = await startTestPlatform({
    env: { SANDBOX_BANKS: 'on', SANDBOX_PORT_BASE: '0' },
    rateLimits: Object.fromEntries(
      ['read', 'write', 'session_create', 'ob_token', 'payment_order_create', 'identity_resolve'].map((name) => [
        name,
        { points: 10_000_000 },
      ]),
    ),
  });
  let demo: Awaited<ReturnType<typeof startDemo>> | undefined;
  try {
    demo = await startDemo(test.platform, { portBase: 0, logger: createLogger('fuzz', 'silent') });
    const file = demo.file;
    const restUrl = test.platform.restUrl;
    const oasis = file.banks.find((bank) => bank.bank_handle === 'oasis') ?? file.banks[0]!;
    // The demo TPP's registered redirect.
    const redirect = `${restUrl}/demo/callback`;
    const credentials: Credentials = {
      adminKey: { 'x-service-admin-key': test.platform.adminKey },
      bankKey: { 'x-service-bank-key': oasis.bank_key },
      merchantKey: { authorization: `Bearer ${file.merchant.api_key}` },
      tppToken: { authorization: `Bearer ${file.tpp.tpp_access_token}` },
      sessionToken: { 'x-session-token': 'sst_fuzz' },
      internalKey: { 'x-service-internal-key': oasis.internal_key },
      obToken: { authorization: 'Bearer at_fuzz' },
      consentId: {},
    };
    const known: Known = {
      bankHandles: file.banks.map((bank) => bank.bank_handle),
      ibans: file.customers.map((customer) => customer.iban),
      aliases: file.customers.map((customer) => customer.alias),
      ids: new Map([
        ['merchant_id', new Set([file.merchant.merchant_id])],
        ['tpp_id', new Set([file.tpp.tpp_id])],
      ]),
      urls: [redirect],
    };

    const post = async (path: string, headers: Record<string, string>, body: unknown, form = false) => {
      const response = await fetch(`${restUrl}${path}`, {
        method: 'POST',
        headers: form
          ? { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers }
          : json(headers),
        body: form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
      });
      const answer = (await response.json()) as any;
      if (response.status >= 300)
        throw new Error(`fuzz fixture: POST ${path} answered ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };

    const renewGrant = async () => {
      const payer = file.customers.find((customer) => customer.bank_handle === oasis.bank_handle)!;
      const verifier = randomBytes(32).toString('base64url');
      const consent = await post('/ob/consents', credentials.tppToken!, {
        bank_handle: payer.bank_handle,
        scopes: ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'],
        redirect_uri: redirect,
        state: randomBytes(8).toString('hex'),
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        expiry_days: 30,
      });
      const approved = await post(
        `/ob/auth/${consent.consent_id}/approve`,
        {},
        { customer: { type: 'alias', value: payer.alias }, otp: payer.otp },
      );
      const code = new URL(approved.redirect_to).searchParams.get('code')!;
      const tokens = await post(
        '/ob/token',
        {},
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirect,
          consent_id: consent.consent_id,
          code_verifier: verifier,
        },
        true,
      );
      credentials.obToken = { authorization: `Bearer ${tokens.access_token}` };
      credentials.consentId = { 'x-consent-id': consent.consent_id };
      known.ids.set('consent_id', new Set([consent.consent_id]));
      const accounts = await fetch(`${restUrl}/ob/accounts`, {
        headers: { accept: 'application/json', ...credentials.obToken, ...credentials.consentId },
      });
      const body = (await accounts.json()) as any;
      for (const account of body?.accounts ?? body?.data ?? [])
        if (typeof account?.account_id === 'string') known.ids.set('account_id', new Set([account.account_id]));
    };
    await renewGrant();

    // A pending payment session, so the session routes have one to address.
    const payee = file.customers.find((customer) => customer.bank_handle !== oasis.bank_handle) ?? file.customers[0]!;
    const session = await post('/payments/sessions', credentials.merchantKey!, {
      amount: 1250,
      currency: 'LYD',
      destination: { type: 'alias', value: payee.alias },
      reference: 'fuzz-1',
    });
    known.ids.set('session_id', new Set([session.session_id]));

    const repairBanks = async () => {
      for (const bank of file.banks) {
        const key =
          bank.bank_handle === oasis.bank_handle ? credentials.bankKey!['x-service-bank-key']! : bank.bank_key;
        await fetch(`${restUrl}/banks/${bank.bank_handle}`, {
          method: 'PATCH',
          headers: json({ 'x-service-bank-key': key }),
          body: JSON.stringify({ core_base_url: bank.core_base_url }),
        });
      }
    };

    // The key each sandbox core accepts: the gateway's current one for that bank.
    const coreKeys = new Map(file.banks.map((bank) => [bank.bank_handle, bank.internal_key]));
    const admin = { 'x-service-admin-key': file.admin_key };
    const repairAfter = async (path: string, url: string, answer: unknown) => {
      if (path.endsWith('/suspend')) {
        const resume = new URL(url, restUrl);
        resume.pathname = resume.pathname.replace(/\/suspend$/, '/resume');
        resume.search = '';
        await fetch(resume, { method: 'POST', headers: json(admin) });
        return;
      }
      if (path !== '/banks/{handle}/rotate-internal-key') return;
      const handle = decodeURIComponent(new URL(url, restUrl).pathname.split('/')[2] ?? '');
      const bank = file.banks.find((entry) => entry.bank_handle === handle);
      const fresh = (answer as { internal_key?: unknown } | undefined)?.internal_key;
      if (!bank || typeof fresh !== 'string') return;
      const bankKey =
        bank.bank_handle === oasis.bank_handle ? credentials.bankKey!['x-service-bank-key']! : bank.bank_key;
      const told = await fetch(`${bank.core_base_url}/sandbox/gateway`, {
        method: 'PUT',
        headers: json({ 'x-service-internal-key': coreKeys.get(handle)! }),
        body: JSON.stringify({ url: restUrl, bank_key: bankKey, internal_key: fresh }),
      });
      if (told.ok) coreKeys.set(handle, fresh);
    };

    return {
      restUrl,
      graphqlUrl: `${restUrl}/graphql`,
      credentials,
      known,
      merchantId: file.merchant.merchant_id,
      repairBanks,
      repairAfter,
      renewGrant,
      async stop() {
        await demo?.stop();
        await test.stop();
      },
    };
  } catch (error) {
    await demo?.stop().catch(() => undefined);
    await test.stop();
    throw error;
  }
}
