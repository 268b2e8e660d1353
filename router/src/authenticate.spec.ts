import { GatewayError, hmacSha256Hex, PRINCIPAL_HEADER, ROUTER_AUDIENCE, signPrincipal } from '@gateway/kernel';
import { DpopNonces } from '@gateway/vault';
import { authenticate, principalWithoutLookup, type VaultEm } from './authenticate';

const SECRET = 'pls_authenticate_spec';
const ADMIN_KEY = 'adm_authenticate_spec';
// Never asked: every case here is decided without the vault.
const noVault: VaultEm = () => {
  throw new Error('the vault was asked');
};
const nonces = new DpopNonces(SECRET, false);
const check = (headers: Record<string, string>) =>
  authenticate(noVault, headers, ADMIN_KEY, '10.0.0.1', SECRET, nonces);
/** A platform service's call as its service client signs it: for the router, and for the request id it is sent with. */
const serviceCall = (requestId = 'req_service1', audience = ROUTER_AUDIENCE, secret = SECRET) => ({
  'x-request-id': requestId,
  [PRINCIPAL_HEADER]: signPrincipal({ kind: 'service', id: 'payments' }, secret, { audience, requestId }),
});

describe('callers known without a vault lookup (principalWithoutLookup, issue 32)', () => {
  it('a caller without credentials is anonymous, synchronously, and authenticate says the same', async () => {
    const headers = { 'content-type': 'application/json', 'x-request-id': 'req_1' };
    expect(principalWithoutLookup(headers, '10.0.0.1', SECRET)).toEqual({ kind: 'anonymous', ip: '10.0.0.1' });
    expect(check(headers)).toEqual({ kind: 'anonymous', ip: '10.0.0.1' });
  });

  it("a platform service's valid signature is the service, whatever other credential is sent, once", async () => {
    const headers = { ...serviceCall(), authorization: 'Bearer sk_test_whatever' };
    expect(principalWithoutLookup(headers, '10.0.0.1', SECRET)).toEqual({
      kind: 'service',
      id: 'payments',
      ip: '10.0.0.1',
    });
    // Spent by that check: the same header again is refused, never looked up.
    await expect(check(headers)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      detail: 'forwarded principal was already used',
    });
    expect(check({ ...serviceCall(), authorization: 'Bearer sk_test_whatever' })).toEqual({
      kind: 'service',
      id: 'payments',
      ip: '10.0.0.1',
    });
  });

  it.each([
    ['x-service-admin-key', 'adm_other'],
    ['x-service-bank-key', 'bk_whatever'],
    ['authorization', 'Bearer sk_test_whatever'],
    ['x-session-token', 'sst_whatever'],
    ['x-service-internal-key', 'ik_whatever'],
  ])('leaves a request carrying %s to authenticate (a lookup, or a refusal)', (name, value) => {
    expect(principalWithoutLookup({ [name]: value }, '10.0.0.1', SECRET)).toBeUndefined();
  });

  it('leaves a bad or foreign signature to authenticate, which refuses it', async () => {
    const bad = { [PRINCIPAL_HEADER]: 'e30.0000' };
    const merchant = {
      'x-request-id': 'req_merchant1',
      [PRINCIPAL_HEADER]: signPrincipal({ kind: 'merchant', id: 'mer_1' }, SECRET, {
        audience: ROUTER_AUDIENCE,
        requestId: 'req_merchant1',
      }),
    };
    const otherSecret = serviceCall('req_service2', ROUTER_AUDIENCE, 'pls_other');
    for (const headers of [bad, merchant, otherSecret]) {
      expect(principalWithoutLookup(headers, '10.0.0.1', SECRET)).toBeUndefined();
      await expect(check(headers)).rejects.toEqual(expect.any(GatewayError));
      await expect(check(headers)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    }
  });
});

describe('a service principal at the edge (issue 46: only from a platform service, for the router, once)', () => {
  const refused = async (headers: Record<string, string>, detail: string) => {
    expect(principalWithoutLookup(headers, '10.0.0.1', SECRET)).toBeUndefined();
    await expect(check(headers)).rejects.toMatchObject({ code: 'UNAUTHORIZED', detail });
  };

  it('refuses the audience-free principal of before, though made with the platform secret (the probe)', async () => {
    const payload = Buffer.from(JSON.stringify({ kind: 'service', id: 'payments', iat: Date.now() })).toString(
      'base64url',
    );
    await refused(
      { 'x-request-id': 'req_probe1', [PRINCIPAL_HEADER]: `${payload}.${hmacSha256Hex(SECRET, payload)}` },
      'forwarded principal has a bad signature',
    );
  });

  it('refuses one the router signed for a subgraph (a hop seen on its way), and one of another request', async () => {
    await refused(serviceCall('req_hop1', 'open-banking'), 'forwarded principal was signed for another service');
    await refused(
      { ...serviceCall('req_hop2'), 'x-request-id': 'req_hop3' },
      'forwarded principal was signed for another request',
    );
    const { 'x-request-id': _, ...withoutRequestId } = serviceCall('req_hop4');
    await refused(withoutRequestId, 'forwarded principal was signed for another request');
  });

  it('refuses one sent again, on any edge of this process', async () => {
    const headers = serviceCall('req_again1');
    expect(check(headers)).toEqual({ kind: 'service', id: 'payments', ip: '10.0.0.1' });
    await refused(headers, 'forwarded principal was already used');
  });
});
