import type { webhooks } from './generated/schema';

/**
 * The events the gateway delivers, typed from the OpenAPI document's `webhooks` section (one POST
 * per event, its body the envelope {id, event, created_at, livemode, sequence, data}). `sequence`
 * counts the events of one session (refund, mandate, consent, payment order) from 1: order by it
 * and drop what you already have; `id` is the same on every retry: deduplicate on it.
 */
export type WebhookEventName = keyof webhooks;

type BodyOf<Operation> = Operation extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : never;

/** One delivery's body; switch on `event` to narrow `data` (payment.completed has settlement_type, …). */
export type WebhookEvent = { [Name in WebhookEventName]: BodyOf<webhooks[Name]['post']> }[WebhookEventName];

/** The body of one named event: WebhookEventOf<'refund.completed'>. */
export type WebhookEventOf<Name extends WebhookEventName> = Extract<WebhookEvent, { event: Name }>;
