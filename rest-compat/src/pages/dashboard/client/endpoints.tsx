import { useState } from 'preact/hooks';
import { describeError, graphql, type ApiError } from './api';
import { formatTime } from './format';
import {
  CREATE_WEBHOOK_ENDPOINT,
  MERCHANT_EVENTS,
  WEBHOOK_ENDPOINTS,
  type EndpointConnection,
  type WebhookEndpoint,
} from './operations-webhooks';
import { SecretOnce } from './secret-once';
import { ErrorLine, hrefOf, StatusBadge, useDashboard, usePoll } from './shared';

const ENDPOINTS_POLL_MS = 10_000;

/** What the endpoint form edits; no event picked is every event ("*"). */
export interface EndpointDraft {
  url: string;
  description: string;
  events: string[];
}

export const enabledEventsOf = (draft: EndpointDraft): string[] => (draft.events.length ? draft.events : ['*']);
export const describeEvents = (events: readonly string[]): string =>
  events.includes('*') ? 'every event' : events.join(', ');

/** The merchant's webhook endpoints (the primary webhook URL first, as the API lists it) and a form for another. */
export function EndpointList() {
  const { merchant } = useDashboard();
  const { data, error, refresh } = usePoll(
    () =>
      graphql<{ webhookEndpoints: EndpointConnection }>(WEBHOOK_ENDPOINTS, { first: 50 }).then((answer) =>
        answer.webhookEndpoints.edges.map((edge) => edge.node),
      ),
    ENDPOINTS_POLL_MS,
    [merchant.id],
  );
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <section class="card">
      <div class="section-head">
        <h1>Webhook endpoints</h1>
        {!adding && !secret && (
          <button type="button" id="add-endpoint" onClick={() => setAdding(true)}>
            Add an endpoint
          </button>
        )}
      </div>
      <p class="meta">
        Each endpoint gets the events it picked, signed with its own secret, in order per session; a dead one holds back
        only its own deliveries.
      </p>
      {secret && (
        <SecretOnce
          secret={secret}
          title="The new endpoint's signing secret"
          codeId="endpoint-secret"
          hideId="endpoint-secret-hide"
          onHide={() => setSecret(null)}
        />
      )}
      {adding && (
        <EndpointForm
          id="new-endpoint"
          submitLabel="Create endpoint"
          initial={{ url: '', description: '', events: [] }}
          onCancel={() => setAdding(false)}
          onSubmit={async (draft) => {
            const { createWebhookEndpoint } = await graphql<{
              createWebhookEndpoint: { endpoint: WebhookEndpoint; secret: string };
            }>(CREATE_WEBHOOK_ENDPOINT, {
              input: {
                url: draft.url,
                enabledEvents: enabledEventsOf(draft),
                ...(draft.description ? { description: draft.description } : {}),
              },
            });
            setAdding(false);
            setSecret(createWebhookEndpoint.secret);
            await refresh();
          }}
        />
      )}
      <ErrorLine error={error} id="endpoints-error" />
      {data && data.length === 0 && <p class="meta">No endpoints yet.</p>}
      <ul class="rows" id="endpoints">
        {(data ?? []).map((endpoint) => (
          <li key={endpoint.id} class="row" data-endpoint-id={endpoint.id} data-status={endpoint.status}>
            <a href={hrefOf('webhooks', endpoint.id)} class="row-link">
              <span class="row-main">
                <span class="endpoint-url">{endpoint.url}</span>
                <span class="row-sub">
                  {endpoint.primary ? 'Primary webhook URL · ' : ''}
                  {endpoint.description ? `${endpoint.description} · ` : ''}
                  {describeEvents(endpoint.enabledEvents)}
                </span>
              </span>
              <span class="row-id">{endpoint.id}</span>
              <span class="row-time">{formatTime(endpoint.createdAt)}</span>
              <span class="row-status">
                <StatusBadge status={endpoint.status} />
              </span>
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The endpoint's URL, description and events; the API checks the URL (https in production, no private network). */
export function EndpointForm({
  id,
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  id: string;
  initial: EndpointDraft;
  submitLabel: string;
  onSubmit: (draft: EndpointDraft) => Promise<void>;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const toggle = (event: string, on: boolean) =>
    setDraft({ ...draft, events: on ? [...draft.events, event] : draft.events.filter((name) => name !== event) });
  return (
    <form
      id={id}
      class="endpoint-form"
      onSubmit={(submit) => {
        submit.preventDefault();
        setBusy(true);
        setError(null);
        onSubmit({ ...draft, url: draft.url.trim(), description: draft.description.trim() })
          .catch((caught: unknown) => setError(describeError(caught)))
          .finally(() => setBusy(false));
      }}
    >
      <label for={`${id}-url`}>URL</label>
      <input
        id={`${id}-url`}
        type="url"
        required
        placeholder="https://shop.example/webhooks"
        value={draft.url}
        onInput={(event) => setDraft({ ...draft, url: (event.target as HTMLInputElement).value })}
      />
      <label for={`${id}-description`}>Description</label>
      <input
        id={`${id}-description`}
        maxLength={500}
        placeholder="Staging, data warehouse, …"
        value={draft.description}
        onInput={(event) => setDraft({ ...draft, description: (event.target as HTMLInputElement).value })}
      />
      <fieldset class="event-picks" id={`${id}-events`}>
        <legend>Events (none picked: every event)</legend>
        {MERCHANT_EVENTS.map((event) => (
          <label key={event} class="check">
            <input
              type="checkbox"
              value={event}
              checked={draft.events.includes(event)}
              onChange={(change) => toggle(event, (change.target as HTMLInputElement).checked)}
            />{' '}
            {event}
          </label>
        ))}
      </fieldset>
      <div class="actions">
        <button type="submit" id={`${id}-submit`} disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorLine error={error} id={`${id}-error`} />
    </form>
  );
}
