import type { Knex } from '@mikro-orm/knex';
import type { ServiceClient } from '@gateway/federation';
import { newSecret, sealSecret } from '@gateway/kernel';
import { createTargetLookup, openMerchantTarget } from './delivery-target';
import { audienceOf, bankAudience, OPERATOR_AUDIENCE } from './webhook-audience';

describe('webhook targets of TPPs', () => {
  const platformSecret = 'platform-secret-for-this-spec-0123456789';
  // Never touched for a TPP: a merchant's target is the only one read from the payments schema.
  const knex = new Proxy(
    {},
    {
      get: () => {
        throw new Error('the payments schema was read for a TPP');
      },
    },
  ) as unknown as Knex;

  it('tells a TPP audience from a merchant by the id prefix, and the operator and banks by theirs', () => {
    expect(audienceOf('tpp_abc')).toBe('tpp');
    expect(audienceOf('mer_abc')).toBe('merchant');
    expect(audienceOf('tppx_abc')).toBe('merchant');
    expect(audienceOf(OPERATOR_AUDIENCE)).toBe('operator');
    expect(audienceOf(bankAudience('oasis'))).toBe('bank');
    // A bank may be called "operator": its audience is still a bank's, not the operator's.
    expect(audienceOf(bankAudience('operator'))).toBe('bank');
    expect(bankAudience('operator')).not.toBe(OPERATOR_AUDIENCE);
  });

  it("asks open-banking for the TPP's target on every lookup and opens the sealed secret here", async () => {
    const secrets = [newSecret('whsec_'), newSecret('whsec_')];
    const asked: Array<Record<string, unknown> | undefined> = [];
    const call = (async (query: string, variables?: Record<string, unknown>) => {
      expect(query).toContain('tppWebhookTarget');
      asked.push(variables);
      return {
        tppWebhookTarget: {
          url: 'https://tpp.example/hooks',
          sealedSecret: sealSecret(secrets[asked.length - 1]!, platformSecret),
        },
      };
    }) as ServiceClient;
    const lookup = createTargetLookup({ knex, call, platformSecret });
    expect(await lookup({ audience_id: 'tpp_1', endpoint_id: 'we_tpp_1', aggregate_id: 'con_1' })).toEqual({
      url: 'https://tpp.example/hooks',
      secret: secrets[0],
    });
    // Not cached: a rotation in between is seen by the very next attempt.
    expect(await lookup({ audience_id: 'tpp_1', endpoint_id: 'we_tpp_1', aggregate_id: 'con_1' })).toEqual({
      url: 'https://tpp.example/hooks',
      secret: secrets[1],
    });
    expect(asked).toEqual([{ tppId: 'tpp_1' }, { tppId: 'tpp_1' }]);
  });

  it('an unknown TPP has no target', async () => {
    const call = (async () => ({ tppWebhookTarget: null })) as ServiceClient;
    expect(
      await createTargetLookup({ knex, call, platformSecret })({
        audience_id: 'tpp_gone',
        endpoint_id: 'we_tpp_gone',
        aggregate_id: 'con_1',
      }),
    ).toBeNull();
  });
});

describe("a merchant's primary target", () => {
  const platformSecret = 'platform-secret-for-this-spec-0123456789';

  it('opens the secret to sign when a URL is set, the session URL first', () => {
    const sealed = sealSecret('whsec_abc', platformSecret);
    expect(
      openMerchantTarget({ session_url: null, merchant_url: 'https://m.example/h', sealed }, platformSecret),
    ).toEqual({
      url: 'https://m.example/h',
      secret: 'whsec_abc',
    });
    expect(
      openMerchantTarget(
        { session_url: 'https://s.example/h', merchant_url: 'https://m.example/h', sealed },
        platformSecret,
      ),
    ).toEqual({ url: 'https://s.example/h', secret: 'whsec_abc' });
  });

  it('leaves the secret sealed without a URL: nothing will be signed (every intake of such a merchant asks)', () => {
    // Not a sealed value at all: opening it would throw.
    expect(openMerchantTarget({ session_url: null, merchant_url: null, sealed: 'not-sealed' }, platformSecret)).toEqual(
      { url: null, secret: null },
    );
  });

  it('uses the target the claim read without reading it again: a merchant found or not, an endpoint enabled, disabled or deleted', async () => {
    const sealed = sealSecret('whsec_read', platformSecret);
    const noCall = (async () => {
      throw new Error('open-banking was asked for a target the claim read');
    }) as ServiceClient;
    const noKnex = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the payments schema was read for a target the claim read');
        },
      },
    ) as unknown as Knex;
    const lookup = createTargetLookup({ knex: noKnex, call: noCall, platformSecret });
    const merchant = { audience_id: 'mer_1', endpoint_id: 'we_mer_1', aggregate_id: 'ops_1' };
    expect(
      await lookup({
        ...merchant,
        target_read: { merchant: { merchant_url: 'https://m.example/h', sealed, session_url: null } },
      }),
    ).toEqual({ url: 'https://m.example/h', secret: 'whsec_read' });
    expect(await lookup({ ...merchant, target_read: { merchant: null } })).toBeNull();
    const further = { audience_id: 'mer_1', endpoint_id: 'we_abc', aggregate_id: 'ops_1' };
    const stored = { url: 'https://e.example/h', secret_sealed: sealed };
    expect(await lookup({ ...further, target_read: { endpoint: { ...stored, status: 'ENABLED' } } })).toEqual({
      url: 'https://e.example/h',
      secret: 'whsec_read',
    });
    expect(await lookup({ ...further, target_read: { endpoint: { ...stored, status: 'DISABLED' } } })).toEqual({
      url: 'https://e.example/h',
      secret: null,
      closed: 'webhook endpoint disabled',
    });
    expect(await lookup({ ...further, target_read: { endpoint: null } })).toEqual({
      url: null,
      secret: null,
      closed: 'webhook endpoint deleted',
    });
  });
});
