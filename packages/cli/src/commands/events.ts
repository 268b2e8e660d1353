import { UsageError, type CliContext } from '../context';
import { forwardEvent, type ListedEvent } from '../forward';
import { print, table } from '../io';

const limitOf = (value: string | undefined, fallback: number): number => {
  const limit = value ? Number(value) : fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError('--limit: an integer from 1 to 100');
  return limit;
};

/** `gateway events list [--type payment.completed] [--limit 20]`: the newest events first. */
export async function listEvents(context: CliContext, flags: { type?: string; limit?: string }): Promise<number> {
  const page = await context.gateway().get('/events', {
    params: { query: { limit: limitOf(flags.limit, 20), ...(flags.type ? { type: flags.type } : {}) } },
  });
  const events = page.events as ListedEvent[];
  print(context.io, context.json, page, () =>
    events.length === 0
      ? 'No events.'
      : table([
          ['ID', 'TYPE', 'CREATED', 'OBJECT'],
          ...events.map((event) => [
            event.id,
            event.event,
            event.created_at,
            String(event.data.session_id ?? event.data.mandate_id ?? event.data.consent_id ?? ''),
          ]),
        ]),
  );
  return 0;
}

/**
 * `gateway events resend evt_… --endpoint we_…`: the platform sends that event again to one of your
 * endpoints (with its own event id). `--forward-to URL`: the CLI POSTs it to a local URL, signed
 * with the secret `listen` prints.
 */
export async function resendEvent(
  context: CliContext,
  eventId: string | undefined,
  flags: { endpoint?: string; 'forward-to'?: string },
): Promise<number> {
  if (!eventId) throw new UsageError('events resend needs an event id (evt_…)');
  if (Boolean(flags.endpoint) === Boolean(flags['forward-to']))
    throw new UsageError('events resend needs one of --endpoint we_… or --forward-to <url>');
  const gateway = context.gateway();
  const event = (await gateway.get('/events/{id}', { params: { path: { id: eventId } } })) as ListedEvent & {
    deliveries?: Array<{ delivery_id: string; endpoint_id: string }>;
  };
  if (flags.endpoint) {
    // The event's delivery to that endpoint, whatever its status, is retried: a replay would not send
    // a delivered event again to an endpoint older than a day (docs/webhooks.md "Replay").
    const delivery = event.deliveries?.find((one) => one.endpoint_id === flags.endpoint);
    if (delivery) {
      const retried = await gateway.post('/webhooks/deliveries/{id}/retry', {
        params: { path: { id: delivery.delivery_id } },
      });
      print(
        context.io,
        context.json,
        { event_id: eventId, endpoint_id: flags.endpoint, delivery_id: delivery.delivery_id, status: retried.status },
        () => `Resent ${eventId} to ${flags.endpoint} (delivery ${delivery.delivery_id} queued).`,
      );
      return 0;
    }
    // Never sent there: a replay of the millisecond the event was made makes its delivery (only_failed false).
    const at = Date.parse(event.created_at);
    const answer = await gateway.post('/webhooks/endpoints/{id}/replay', {
      params: { path: { id: flags.endpoint } },
      body: { from: new Date(at).toISOString(), to: new Date(at + 1).toISOString(), only_failed: false },
    });
    print(context.io, context.json, { event_id: eventId, endpoint_id: flags.endpoint, ...answer }, () =>
      answer.reason
        ? `Nothing resent to ${flags.endpoint}: ${answer.reason}.`
        : `Resent ${eventId} to ${flags.endpoint} (${answer.replayed} event${answer.replayed === 1 ? '' : 's'} queued).`,
    );
    return 0;
  }
  const secret = context.config.forward_secret;
  if (!secret) throw new UsageError('no forwarding secret yet: run `gateway listen` once, then resend to its URL');
  const target = flags['forward-to']!;
  const result = await forwardEvent(target, event, secret);
  print(
    context.io,
    context.json,
    { event_id: eventId, ...result },
    () => `<-- [${result.status ?? result.error}] POST ${target} [${eventId}]`,
  );
  return result.status !== null && result.status >= 200 && result.status < 300 ? 0 : 1;
}
