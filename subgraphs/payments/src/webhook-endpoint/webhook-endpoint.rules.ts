import { webhookUrlRule, z, type WebhookUrlSettings } from '@gateway/kernel';
import { ALL_EVENTS, LIQUIDITY_EVENT_KINDS, MERCHANT_EVENT_KINDS, TPP_EVENT_KINDS } from '../webhook/event-kinds';
import type { WebhookAudience } from '../webhook/webhook-audience';
import { ENDPOINT_STATUSES } from './webhook-endpoint.entity';

const EVENT_KINDS: Record<WebhookAudience, readonly string[]> = {
  merchant: MERCHANT_EVENT_KINDS,
  tpp: TPP_EVENT_KINDS,
  operator: LIQUIDITY_EVENT_KINDS,
  bank: LIQUIDITY_EVENT_KINDS,
};

/**
 * The event kinds an audience's endpoint may name: a merchant's events, a TPP's Open Banking ones,
 * or for the operator and a bank the liquidity events of net debit caps.
 */
export const eventKindsOf = (audience: WebhookAudience): readonly string[] => EVENT_KINDS[audience];

/**
 * enabled_events: `*` alone, or known event kinds of the audience (duplicates dropped, order
 * kept). A name that is no event of the audience is refused rather than kept: a typo would
 * otherwise be an endpoint that silently never gets anything.
 */
function enabledEventsRule(audience: WebhookAudience) {
  const known = new Set(eventKindsOf(audience));
  return z
    .array(z.string().trim(), { error: 'must be a list of event names or ["*"]' })
    .min(1, 'must name at least one event, or "*"')
    .max(50, 'must name at most 50 events')
    .superRefine((names, ctx) => {
      const unknown = names.find((name) => name !== ALL_EVENTS && !known.has(name));
      if (unknown !== undefined)
        ctx.addIssue({ code: 'custom', message: `unknown event "${unknown}" (known: ${[...known].join(', ')}, or *)` });
    })
    .transform((names) => (names.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(names)]));
}

/**
 * A webhook URL as the merchant's is checked (kernel webhookUrlRule): a literal host the egress
 * policy refuses (loopback, private or link-local unless PRIVATE_TARGETS; reserved ranges such as
 * cloud metadata always) is refused at once in every mode. Names are judged at every delivery on
 * what they resolve to.
 */
const endpointUrlRule = (targets: WebhookUrlSettings) => webhookUrlRule(targets);

const description = z.string().trim().max(500, 'must be at most 500 characters');

/** An endpoint's world as asked for on creation (the operator's and a bank's; a merchant's or TPP's is its credential's). */
const mode = z
  .enum(['live', 'test'], { error: 'must be live or test' })
  .nullish()
  .transform((world) => world ?? undefined);

export function createEndpointRules(targets: WebhookUrlSettings, audience: WebhookAudience) {
  return z
    .object({
      url: endpointUrlRule(targets),
      // GraphQL hands an omitted optional field over as undefined and an explicit one as null: both mean "not given".
      enabledEvents: enabledEventsRule(audience)
        .nullish()
        .transform((events) => events ?? [ALL_EVENTS]),
      description: description.nullish().transform((text) => (text ? text : null)),
      mode,
    })
    .strict();
}

export function updateEndpointRules(targets: WebhookUrlSettings, audience: WebhookAudience) {
  return z
    .object({
      url: endpointUrlRule(targets).optional(),
      enabledEvents: enabledEventsRule(audience).optional(),
      // null or "" removes it.
      description: description
        .nullable()
        .optional()
        .transform((text) => (text === undefined ? undefined : text ? text : null)),
      status: z
        .string()
        .transform((status) => status.toUpperCase())
        .pipe(z.enum(ENDPOINT_STATUSES, { error: 'must be enabled or disabled' }))
        .optional(),
    })
    .strict();
}

/** The longest replay window, to − from (issue 46: a replay is for an incident's days, not the whole log). */
export const MAX_REPLAY_DAYS = 7;

/** A replay's range: ISO 8601 instants, from inclusive, to exclusive, from before to, at most MAX_REPLAY_DAYS apart. */
export const replayRules = z
  .object({
    from: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).transform((at) => new Date(at)),
    to: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).transform((at) => new Date(at)),
    onlyFailed: z
      .boolean()
      .nullish()
      .transform((only) => only ?? true),
  })
  .strict()
  .refine((range) => range.from < range.to, { message: 'must be after from', path: ['to'] })
  // Judged only on two valid instants (zod runs it after a field's own refusal too).
  .refine(
    (range) =>
      !(range.from instanceof Date && range.to instanceof Date) ||
      range.to.getTime() - range.from.getTime() <= MAX_REPLAY_DAYS * 86_400_000,
    {
      message: `must be at most ${MAX_REPLAY_DAYS} days after from: replay a longer stretch one window at a time`,
      path: ['to'],
    },
  );
