import { useState } from 'preact/hooks';
import { ApiError, describeError, graphql } from './api';
import { EndpointForm, describeEvents } from './endpoints';
import { dayRange } from './filters';
import { formatTime } from './format';
import {
  DELETE_WEBHOOK_ENDPOINT,
  REPLAY_WEBHOOK_ENDPOINT,
  UPDATE_WEBHOOK_ENDPOINT,
  WEBHOOK_ENDPOINT,
  type WebhookEndpoint,
} from './operations-webhooks';
import { replayOutcomeText, type ReplayOutcome } from './replay-outcome';
import { ErrorLine, Field, hrefOf, StatusBadge, useDashboard, usePoll } from './shared';
import { lastDays, utcDay } from './summary';

/** One endpoint: edit its URL and events, enable or disable it, delete it, or replay its events of a range. */
export function EndpointDetail({ id }: { id: string }) {
  const { merchant } = useDashboard();
  const { data, error, refresh } = usePoll(
    () =>
      graphql<{ webhookEndpoint: WebhookEndpoint }>(WEBHOOK_ENDPOINT, { id }).then((answer) => answer.webhookEndpoint),
    30_000,
    [merchant.id, id],
  );
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [actionError, setActionError] = useState<ApiError | null>(null);

  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setActionError(null);
    try {
      await work();
      await refresh();
    } catch (caught) {
      setActionError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };
  const setStatus = (status: 'ENABLED' | 'DISABLED') =>
    act(() => graphql(UPDATE_WEBHOOK_ENDPOINT, { id, input: { status } }));
  const remove = () =>
    act(async () => {
      await graphql(DELETE_WEBHOOK_ENDPOINT, { id });
      location.hash = hrefOf('webhooks');
    });

  return (
    <section class="card" id="endpoint-detail">
      <p class="back">
        <a href={hrefOf('webhooks')}>← Webhooks</a>
      </p>
      <h1>{data ? data.url : error ? 'Endpoint not found' : 'Endpoint'}</h1>
      <ErrorLine error={error ?? actionError} id="endpoint-error" />
      {data && (
        <>
          <dl class="fields">
            <Field label="Id">{data.id}</Field>
            <Field label="Status">
              <span id="endpoint-status" data-status={data.status}>
                <StatusBadge status={data.status} />
              </span>
            </Field>
            <Field label="Events">
              <span id="endpoint-events">{describeEvents(data.enabledEvents)}</span>
            </Field>
            <Field label="Description">{data.description ?? '—'}</Field>
            <Field label="Created">{formatTime(data.createdAt)}</Field>
            {data.primary && <Field label="Primary">The merchant's webhook URL (every event)</Field>}
          </dl>
          {editing ? (
            <EndpointForm
              id="edit-endpoint"
              submitLabel="Save"
              initial={{
                url: data.url,
                description: data.description ?? '',
                events: data.enabledEvents.filter((event) => event !== '*'),
              }}
              onCancel={() => setEditing(false)}
              onSubmit={async (draft) => {
                await graphql(UPDATE_WEBHOOK_ENDPOINT, {
                  id,
                  input: {
                    url: draft.url,
                    description: draft.description,
                    enabledEvents: draft.events.length ? draft.events : ['*'],
                  },
                });
                setEditing(false);
                await refresh();
              }}
            />
          ) : (
            !data.primary && (
              <div class="actions">
                <button type="button" class="secondary" id="edit-endpoint-button" onClick={() => setEditing(true)}>
                  Edit
                </button>
                {data.status === 'ENABLED' ? (
                  <button
                    type="button"
                    class="secondary"
                    id="disable-endpoint"
                    disabled={busy}
                    onClick={() => void setStatus('DISABLED')}
                  >
                    Disable
                  </button>
                ) : (
                  <button type="button" id="enable-endpoint" disabled={busy} onClick={() => void setStatus('ENABLED')}>
                    Enable
                  </button>
                )}
                {confirmDelete ? (
                  <button
                    type="button"
                    class="danger"
                    id="delete-confirm"
                    disabled={busy}
                    onClick={() => void remove()}
                  >
                    Delete for good
                  </button>
                ) : (
                  <button type="button" class="danger" id="delete-endpoint" onClick={() => setConfirmDelete(true)}>
                    Delete
                  </button>
                )}
              </div>
            )
          )}
          <Replay id={id} />
        </>
      )}
    </section>
  );
}

/** A replay covers at most 7 days (the API refuses longer windows): the form starts with the last 7 UTC days. */
const REPLAY_DAYS = 7;

/** Sends the endpoint's failed (or all) events of a range of days again, each with its own event id. */
function Replay({ id }: { id: string }) {
  const week = lastDays(new Date(), REPLAY_DAYS);
  const [from, setFrom] = useState(week.dates[0]!);
  const [to, setTo] = useState(utcDay(new Date()));
  const [onlyFailed, setOnlyFailed] = useState(true);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<ReplayOutcome | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async () => {
    const range = dayRange(from, to);
    if (!range?.from || !range.to) {
      setError(new ApiError('VALIDATION_ERROR', 'to: pick a first day on or before the last day.'));
      return;
    }
    setBusy(true);
    setError(null);
    setOutcome(null);
    try {
      const answer = await graphql<{ replayWebhookEndpoint: ReplayOutcome }>(REPLAY_WEBHOOK_ENDPOINT, {
        id,
        from: range.from,
        to: range.to,
        onlyFailed,
      });
      setOutcome(answer.replayWebhookEndpoint);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      id="replay-form"
      class="replay"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h2>Replay events</h2>
      <p class="meta">
        Each event is sent again with its own event id, in order per session: up to {REPLAY_DAYS} days and 1,000 events
        at a time. One already delivered is sent again only to an endpoint added in the last 24 hours.
      </p>
      <div class="filter-grid">
        <div>
          <label for="replay-from">From</label>
          <input
            id="replay-from"
            type="date"
            value={from}
            onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
          />
        </div>
        <div>
          <label for="replay-to">To</label>
          <input id="replay-to" type="date" value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
        </div>
      </div>
      <label class="check">
        <input
          type="checkbox"
          id="replay-only-failed"
          checked={onlyFailed}
          onChange={(e) => setOnlyFailed((e.target as HTMLInputElement).checked)}
        />{' '}
        Only events whose delivery failed
      </label>
      <div class="actions">
        <button type="submit" id="replay-button" disabled={busy}>
          {busy ? 'Replaying…' : 'Replay'}
        </button>
      </div>
      {outcome !== null && (
        <p
          class="meta"
          role="status"
          id="replay-result"
          data-replayed={outcome.replayed}
          data-reason={outcome.reason ?? undefined}
        >
          {replayOutcomeText(outcome)}
        </p>
      )}
      <ErrorLine error={error} id="replay-error" />
    </form>
  );
}
