import { replayOutcomeText } from './replay-outcome';

describe('the replay answer in the dashboard', () => {
  const outcome = { replayed: 0, events: 0, skippedDelivered: 0, skippedPending: 0 };

  it('says why nothing was sent instead of a bare count', () => {
    expect(
      replayOutcomeText({ ...outcome, events: 3, skippedDelivered: 2, skippedPending: 1, reason: 'NOTHING_FAILED' }),
    ).toBe(
      '0 events sent again: none of the 3 events of these days failed to reach this endpoint (2 already delivered, 1 still on their way). Untick “Only events whose delivery failed” to also send those it never had.',
    );
    expect(replayOutcomeText({ ...outcome, reason: 'NO_EVENTS' })).toMatch(
      /^0 events sent again: no event of these days/,
    );
    expect(replayOutcomeText({ ...outcome, reason: 'ENDPOINT_DISABLED' })).toMatch(/endpoint is disabled/);
    expect(replayOutcomeText({ ...outcome, events: 1, skippedDelivered: 1, reason: 'ALREADY_SENT' })).toMatch(
      /^0 events sent again: each of the 1 event of these days was delivered .*only to an endpoint added in the last 24 hours\.$/,
    );
  });

  it('counts what was sent and what was left out', () => {
    expect(replayOutcomeText({ ...outcome, replayed: 1, events: 1, reason: null })).toBe('1 event sent again.');
    expect(replayOutcomeText({ ...outcome, replayed: 2, events: 4, skippedDelivered: 2, reason: null })).toBe(
      '2 events sent again; left out: 2 already delivered.',
    );
  });
});
