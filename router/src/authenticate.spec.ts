import { GatewayError, PRINCIPAL_HEADER, signPrincipal } from '@gateway/kernel';
import { authenticate, principalWithoutLookup, type VaultEm } from './authenticate';

const SECRET = 'pls_authenticate_spec';
const ADMIN_KEY = 'adm_authenticate_spec';
// Never asked: every case here is decided without the vault.
const noVault: VaultEm = () => {
  throw new Error('the vault was asked');
};
const check = (headers: Record<string, string>) => authenticate(noVault, headers, ADMIN_KEY, '10.0.0.1', SECRET);

describe('callers known without a vault lookup (principalWithoutLookup, issue 32)', () => {
  it('a caller without credentials is anonymous, synchronously, and authenticate says the same', async () => {
    const headers = { 'content-type': 'application/json', 'x-request-id': 'req_1' };
    expect(principalWithoutLookup(headers, '10.0.0.1', SECRET)).toEqual({ kind: 'anonymous', ip: '10.0.0.1' });
    expect(check(headers)).toEqual({ kind: 'anonymous', ip: '10.0.0.1' });
  });

  it("a platform service's valid signature is the service, whatever other credential is sent", async () => {
    const headers = {
      [PRINCIPAL_HEADER]: signPrincipal({ kind: 'service', id: 'payments' }, SECRET),
      authorization: 'Bearer sk_test_whatever',
    };
    expect(principalWithoutLookup(headers, '10.0.0.1', SECRET)).toEqual({
      kind: 'service',
      id: 'payments',
      ip: '10.0.0.1',
    });
    expect(check(headers)).toEqual({ kind: 'service', id: 'payments', ip: '10.0.0.1' });
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
    const merchant = { [PRINCIPAL_HEADER]: signPrincipal({ kind: 'merchant', id: 'mer_1' }, SECRET) };
    const otherSecret = { [PRINCIPAL_HEADER]: signPrincipal({ kind: 'service', id: 'payments' }, 'pls_other') };
    for (const headers of [bad, merchant, otherSecret]) {
      expect(principalWithoutLookup(headers, '10.0.0.1', SECRET)).toBeUndefined();
      await expect(check(headers)).rejects.toEqual(expect.any(GatewayError));
      await expect(check(headers)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    }
  });
});
