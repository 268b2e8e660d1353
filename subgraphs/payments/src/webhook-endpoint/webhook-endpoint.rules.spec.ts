import { GatewayError, parseInput } from '@gateway/kernel';
import { createEndpointRules, replayRules, updateEndpointRules } from './webhook-endpoint.rules';
import { endpointWorld } from './webhook-endpoint.service';

const local = { production: false, privateTargets: false };
const detailOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('VALIDATION_ERROR');
    return (error as GatewayError).detail;
  }
  throw new Error('accepted');
};

describe('webhook endpoint rules', () => {
  it('takes a URL, known event names of the audience or *, and defaults to all events', () => {
    expect(parseInput(createEndpointRules(local, 'merchant'), { url: ' https://example.com/hook ' })).toEqual({
      url: 'https://example.com/hook',
      enabledEvents: ['*'],
      description: null,
    });
    const events = ['payment.completed', 'refund.failed', 'payment.completed'];
    expect(
      parseInput(createEndpointRules(local, 'merchant'), { url: 'https://example.com', enabledEvents: events }),
    ).toMatchObject({ enabledEvents: ['payment.completed', 'refund.failed'] });
    expect(
      parseInput(createEndpointRules(local, 'tpp'), {
        url: 'https://example.com',
        enabledEvents: ['consent.granted', '*'],
      }),
    ).toMatchObject({ enabledEvents: ['*'] });
  });

  it('refuses unknown events (another audience’s too), naming enabled_events', () => {
    expect(
      detailOf(() =>
        parseInput(createEndpointRules(local, 'merchant'), { url: 'https://e.com', enabledEvents: ['payment.nope'] }),
      ),
    ).toMatch(/^enabled_events/);
    expect(
      detailOf(() =>
        parseInput(createEndpointRules(local, 'merchant'), {
          url: 'https://e.com',
          enabledEvents: ['consent.granted'],
        }),
      ),
    ).toMatch(/^enabled_events/);
    expect(
      detailOf(() => parseInput(createEndpointRules(local, 'tpp'), { url: 'https://e.com', enabledEvents: [] })),
    ).toMatch(/^enabled_events/);
  });

  it('the operator and banks name liquidity events only; a merchant or TPP cannot subscribe to them', () => {
    const liquidity = ['liquidity.threshold_reached', 'liquidity.cap_reached'];
    for (const audience of ['operator', 'bank'] as const) {
      expect(
        parseInput(createEndpointRules(local, audience), { url: 'https://e.com', enabledEvents: liquidity }),
      ).toMatchObject({ enabledEvents: liquidity });
      expect(
        detailOf(() =>
          parseInput(createEndpointRules(local, audience), {
            url: 'https://e.com',
            enabledEvents: ['payment.completed'],
          }),
        ),
      ).toMatch(/^enabled_events: unknown event "payment.completed"/);
    }
    for (const audience of ['merchant', 'tpp'] as const)
      expect(
        detailOf(() =>
          parseInput(createEndpointRules(local, audience), {
            url: 'https://e.com',
            enabledEvents: ['liquidity.cap_reached'],
          }),
        ),
      ).toMatch(/^enabled_events: unknown event "liquidity.cap_reached"/);
  });

  it("an endpoint's world: the operator's and a bank's from mode (live by default), a merchant's or TPP's its credential's", () => {
    const parsed = (mode: unknown) =>
      parseInput(createEndpointRules(local, 'bank'), { url: 'https://e.com', mode }).mode;
    expect([parsed(undefined), parsed(null), parsed('live'), parsed('test')]).toEqual([
      undefined,
      undefined,
      'live',
      'test',
    ]);
    expect(detailOf(() => parsed('sandbox'))).toMatch(/^mode/);
    const anyWorld = { livemode: null };
    expect([
      endpointWorld(anyWorld, undefined),
      endpointWorld(anyWorld, 'live'),
      endpointWorld(anyWorld, 'test'),
    ]).toEqual([true, true, false]);
    const testMerchant = { livemode: false };
    expect([endpointWorld(testMerchant, undefined), endpointWorld(testMerchant, 'test')]).toEqual([false, false]);
    expect(detailOf(() => endpointWorld(testMerchant, 'live'))).toMatch(/^mode: /);
  });

  it('refuses private networks unless PRIVATE_TARGETS, reserved ones always, and http in production', () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://10.1.2.3/hook',
      'http://[::1]/hook',
      'http://localhost/hook',
    ])
      expect(detailOf(() => parseInput(createEndpointRules(local, 'merchant'), { url }))).toMatch(
        /^url: must point to a public address/,
      );
    const allowed = { production: false, privateTargets: true };
    expect(parseInput(createEndpointRules(allowed, 'merchant'), { url: 'http://127.0.0.1:8080/hook' }).url).toBe(
      'http://127.0.0.1:8080/hook',
    );
    expect(
      detailOf(() => parseInput(createEndpointRules(allowed, 'merchant'), { url: 'http://100.100.100.200/' })),
    ).toMatch(/^url/);
    expect(
      detailOf(() =>
        parseInput(createEndpointRules({ production: true, privateTargets: false }, 'merchant'), {
          url: 'http://example.com/',
        }),
      ),
    ).toMatch(/^url/);
  });

  it('changes: status in either case, description removable, nothing else', () => {
    expect(parseInput(updateEndpointRules(local, 'merchant'), { status: 'disabled', description: '' })).toEqual({
      status: 'DISABLED',
      description: null,
    });
    expect(detailOf(() => parseInput(updateEndpointRules(local, 'merchant'), { status: 'paused' }))).toMatch(/^status/);
    expect(detailOf(() => parseInput(updateEndpointRules(local, 'merchant'), { secret: 'x' }))).toMatch(/secret|body/);
  });

  it('a replay range is two ISO 8601 instants in order, only failed by default', () => {
    expect(parseInput(replayRules, { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' })).toEqual({
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-01-02T00:00:00Z'),
      onlyFailed: true,
    });
    expect(detailOf(() => parseInput(replayRules, { from: 'yesterday', to: '2026-01-02T00:00:00Z' }))).toMatch(/^from/);
    expect(
      detailOf(() => parseInput(replayRules, { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' })),
    ).toMatch(/^to/);
  });

  it('a replay window is at most 7 days: the 10-year probe is refused naming to', () => {
    const week = { from: '2026-01-01T00:00:00Z', to: '2026-01-08T00:00:00Z' };
    expect(parseInput(replayRules, week).to).toEqual(new Date(week.to));
    const tenYears = { from: '2020-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z', onlyFailed: false };
    expect(detailOf(() => parseInput(replayRules, tenYears))).toMatch(/^to: must be at most 7 days after from/);
    expect(detailOf(() => parseInput(replayRules, { ...week, to: '2026-01-08T00:00:00.001Z' }))).toMatch(/^to/);
  });
});
