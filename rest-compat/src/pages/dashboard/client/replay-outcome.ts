/** What replayWebhookEndpoint answers (REST: POST /webhooks/endpoints/{id}/replay). */
export interface ReplayOutcome {
  replayed: number;
  events: number;
  skippedDelivered: number;
  skippedPending: number;
  reason: 'ENDPOINT_DISABLED' | 'NO_EVENTS' | 'NOTHING_FAILED' | 'ALREADY_SENT' | null;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The replay's answer in a sentence (issue 46): how many went out and what was left out, or why
 * none did, rather than a bare "0 events sent again" that reads like a fault.
 */
export function replayOutcomeText(outcome: ReplayOutcome): string {
  const sent = `${count(outcome.replayed, 'event', 'events')} sent again`;
  const left = [
    outcome.skippedDelivered > 0 ? `${outcome.skippedDelivered} already delivered` : null,
    outcome.skippedPending > 0 ? `${outcome.skippedPending} still on their way` : null,
  ].filter((part): part is string => part !== null);
  const leftOut = left.length > 0 ? ` (${left.join(', ')})` : '';
  switch (outcome.reason) {
    case 'ENDPOINT_DISABLED':
      return `${sent}: this endpoint is disabled. Enable it, then replay.`;
    case 'NO_EVENTS':
      return `${sent}: no event of these days is one this endpoint takes (its event filter and world).`;
    case 'NOTHING_FAILED':
      return `${sent}: none of the ${count(outcome.events, 'event', 'events')} of these days failed to reach this endpoint${leftOut}. Untick “Only events whose delivery failed” to also send those it never had.`;
    case 'ALREADY_SENT':
      return `${sent}: each of the ${count(outcome.events, 'event', 'events')} of these days was delivered to this endpoint or is on its way${leftOut}. A delivered event is sent again only to an endpoint added in the last 24 hours.`;
    default:
      return left.length > 0 ? `${sent}; left out: ${left.join(', ')}.` : `${sent}.`;
  }
}
