import { engineSettingsFromEnv } from './engine.settings';

describe('engine settings from the environment', () => {
  it('reads the outcome deadline and the rail confirmation timings in seconds; unset keeps the defaults', () => {
    expect(engineSettingsFromEnv({})).toEqual({});
    expect(
      engineSettingsFromEnv({
        PAYMENT_OUTCOME_DEADLINE_SECONDS: '600',
        RAIL_CONFIRM_RESEND_SECONDS: '120',
        RAIL_CONFIRM_GIVE_UP_SECONDS: '3600',
      }),
    ).toEqual({
      outcomeDeadlineMs: 600_000,
      confirmResendAfterMs: 120_000,
      confirmGiveUpAfterMs: 3_600_000,
    });
  });

  it('refuses to start on a value that is not a whole number of seconds', () => {
    expect(() =>
      engineSettingsFromEnv({ PAYMENT_OUTCOME_DEADLINE_SECONDS: 'soon', RAIL_CONFIRM_GIVE_UP_SECONDS: '0' }),
    ).toThrow(/PAYMENT_OUTCOME_DEADLINE_SECONDS[\s\S]*RAIL_CONFIRM_GIVE_UP_SECONDS/);
  });
});
