import { credentialHeadersOf } from './ws-server';

describe('graphql-ws connectionParams as credential headers', () => {
  it("takes the spec's credentials, the admin key among them, by camelCase or header name", () => {
    expect(credentialHeadersOf({ authorization: 'Bearer mk_x', sessionToken: 'sst_x', adminKey: 'adm_x' })).toEqual({
      authorization: 'Bearer mk_x',
      'x-session-token': 'sst_x',
      'x-service-admin-key': 'adm_x',
    });
    expect(credentialHeadersOf({ 'X-Service-Admin-Key': 'adm_y', Authorization: 'Bearer mk_y' })).toEqual({
      'x-service-admin-key': 'adm_y',
      authorization: 'Bearer mk_y',
    });
  });

  it('ignores anything else: internal headers, prototype names, values that are not strings', () => {
    expect(
      credentialHeadersOf({
        'x-gateway-principal': 'signed',
        constructor: 'x',
        toString: 'y',
        adminKey: 42,
        'x-service-bank-key': 'sbk_x',
      }),
    ).toEqual({});
  });
});
