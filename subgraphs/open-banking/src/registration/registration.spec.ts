import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { publicJwksRule } from '../signing-keys/jwks';
import { start } from '../service';

const REGISTER = `mutation($input: ClientRegistrationInput!) {
  registerClient(input: $input) { registrationAccessToken registration { clientId clientName softwareId securityProfile } }
}`;
const METADATA = `{ authorizationServerMetadata { registrationEndpoint } }`;
const REDIRECT = 'https://tpp.example/cb';

/** RFC 7591 at the subgraph: enabled only with the directory's keys, and the statement's claims checked one by one. */
describe('open-banking subgraph: dynamic client registration', () => {
  let db: Database;
  let enabled: RunningService;
  let disabled: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  let directoryKey: CryptoKey;
  let tppJwk: JWK;

  const statement = (claims: Record<string, unknown>, iat = Math.floor(Date.now() / 1000)) =>
    new SignJWT({ software_id: 'sw-1', software_client_name: 'Directory App', ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'dir' })
      .setIssuer('https://directory.example')
      .setIssuedAt(iat)
      .sign(directoryKey);
  const input = async (patch: Record<string, unknown> = {}, claims: Record<string, unknown> = {}) => ({
    input: {
      softwareStatement: await statement(claims),
      jwks: { keys: [tppJwk] },
      redirectUris: [REDIRECT],
      tokenEndpointAuthMethod: 'private_key_jwt',
      ...patch,
    },
  });
  const refusal = async (variables: Record<string, unknown>, on = client) =>
    (await on.attempt(REGISTER, variables)).errors?.[0]?.extensions;

  beforeAll(async () => {
    db = await openTestDatabase();
    const directory = await generateKeyPair('ES256', { extractable: true });
    directoryKey = directory.privateKey;
    const directoryJwks = publicJwksRule.parse({ keys: [{ ...(await exportJWK(directory.publicKey)), kid: 'dir' }] });
    const tpp = await generateKeyPair('EdDSA', { extractable: true });
    tppJwk = { ...(await exportJWK(tpp.publicKey)), kid: 'tpp-1' };
    enabled = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false, directoryJwks });
    disabled = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false });
    client = subgraphClient(enabled.graphqlUrl, TEST_PLATFORM_SECRET);
  });
  afterAll(async () => {
    await disabled.stop();
    await enabled.stop();
    await db.close();
  });

  it('is not enabled without OB_DIRECTORY_JWKS: a clear refusal, and no registration_endpoint in the metadata', async () => {
    const off = subgraphClient(disabled.graphqlUrl, TEST_PLATFORM_SECRET);
    expect(await refusal(await input(), off)).toMatchObject({
      code: 'REGISTRATION_NOT_ENABLED',
      status: 403,
      detail: expect.stringMatching(/OB_DIRECTORY_JWKS/),
    });
    expect((await off.execute(METADATA)).authorizationServerMetadata.registrationEndpoint).toBeNull();
    expect((await client.execute(METADATA)).authorizationServerMetadata.registrationEndpoint).toBe(
      'http://localhost:8080/ob/register',
    );
  });

  it('registers a fapi2 TPP named by the statement, public (no credential)', async () => {
    const { registerClient } = await client.execute(REGISTER, await input());
    expect(registerClient.registration).toEqual({
      clientId: expect.stringMatching(/^tpp_/),
      clientName: 'Directory App',
      softwareId: 'sw-1',
      securityProfile: 'fapi2',
    });
    expect(registerClient.registrationAccessToken).toMatch(/^rat_/);
    const [entry] = await db
      .knex('audit.entries')
      .where({ action: 'tpp.registered', target: registerClient.registration.clientId });
    expect(entry).toMatchObject({ actor_kind: 'anonymous' });
    expect(entry.changes).toMatchObject({
      security_profile: { to: 'fapi2' },
      software_id: { to: 'sw-1' },
      registration_access_token: { to: '[secret]' },
    });
  });

  it('checks the statement: its claims, its age, and who signed it', async () => {
    const future = await statement({}, Math.floor(Date.now() / 1000) + 600);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [await input({}, { software_id: undefined }), 'INVALID_SOFTWARE_STATEMENT', /software_id/],
      [await input({}, { software_client_name: '' }), 'INVALID_SOFTWARE_STATEMENT', /software_client_name/],
      [await input({ softwareStatement: future }), 'INVALID_SOFTWARE_STATEMENT', /iat is in the future/],
      [await input({}, { exp: 1 }), 'INVALID_SOFTWARE_STATEMENT', /expired/],
      [await input({ softwareStatement: 'eyJhbGciOiJub25lIn0.e30.' }), 'INVALID_SOFTWARE_STATEMENT', /alg "none"/],
      [await input({ tokenEndpointAuthMethod: 'none' }), 'INVALID_CLIENT_METADATA', /^token_endpoint_auth_method: /],
      [await input({ jwks: { keys: [] } }), 'INVALID_CLIENT_METADATA', /^jwks\.keys: /],
      [await input({ redirectUris: ['/relative'] }), 'INVALID_REDIRECT_URI', /^redirect_uris\[0\]: /],
      [await input({ mode: 'prod' }), 'INVALID_CLIENT_METADATA', /^mode: /],
    ];
    for (const [variables, code, detail] of cases)
      expect(await refusal(variables)).toMatchObject({ code, detail: expect.stringMatching(detail) });
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({ software_id: 'x', software_client_name: 'Forged' })
      .setProtectedHeader({ alg: 'ES256', kid: 'dir' })
      .setIssuer('https://directory.example')
      .setIssuedAt()
      .sign(other.privateKey);
    expect(await refusal(await input({ softwareStatement: forged }))).toMatchObject({
      code: 'UNAPPROVED_SOFTWARE_STATEMENT',
    });
  });
});
