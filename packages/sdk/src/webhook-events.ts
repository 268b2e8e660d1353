/**
 * A webhook delivery's body: the envelope {id, event, created_at, livemode, sequence, data}
 * (API-CONTRACT "Webhook headers"). `sequence` counts the events of one session (consent,
 * payment order, mandate, refund) from 1: order by it and drop what you already have.
 */
export interface WebhookEnvelope<Event extends string = string, Data = Record<string, unknown>> {
  /** evt_…, the same on every retry of this delivery: deduplicate on it. */
  id: string;
  event: Event;
  /** ISO 8601 UTC. */
  created_at: string;
  /** false for an event of a test object (a test credential's). */
  livemode: boolean;
  sequence?: number;
  data: Data;
}

export type WebhookEvent = WebhookEnvelope;
