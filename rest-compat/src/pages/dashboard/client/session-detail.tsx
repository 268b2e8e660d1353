import { useEffect, useState } from 'preact/hooks';
import { describeError, graphql, subscribe, type ApiError } from './api';
import { DeliveryList } from './deliveries';
import { formatTime, isFinalSession, refundTimeline, sessionTimeline } from './format';
import { SESSION, SESSION_DETAIL_UPDATED, type SessionDetail } from './operations';
import { RefundPanel, useRefunds } from './refunds';
import { Amount, ErrorLine, Field, hrefOf, StatusBadge, useDashboard } from './shared';

/** One session: its fields, its metadata (the merchant's own pairs), the timeline its timestamps give, followed live until final, its refunds once paid, and its webhook deliveries. */
export function SessionDetailView({ id }: { id: string }) {
  const { merchant, live, exponents } = useDashboard();
  const [session, setSession] = useState<SessionDetail | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    let stopped = false;
    graphql<{ paymentSession: SessionDetail }>(SESSION, { id })
      .then(({ paymentSession }) => !stopped && setSession(paymentSession))
      .catch((caught) => !stopped && setError(describeError(caught)));
    return () => {
      stopped = true;
    };
  }, [merchant.id, id]);

  const following = session != null && !isFinalSession(session.status);
  const refunds = useRefunds(id, session?.status === 'COMPLETED');
  useEffect(() => {
    if (!following) return;
    return subscribe<{ paymentSessionUpdated: SessionDetail }>(
      live,
      SESSION_DETAIL_UPDATED,
      { id },
      ({ paymentSessionUpdated }) => setSession(paymentSessionUpdated),
      setError,
    );
  }, [following, live, id]);

  return (
    <section class="card" id="session-detail">
      <p class="back">
        <a href={hrefOf('sessions')}>← All sessions</a>
      </p>
      {error && !session && (
        <>
          <h1>{error.code === 'SESSION_NOT_FOUND' ? 'Session not found' : 'Session could not be loaded'}</h1>
          <p class="meta">{id}</p>
        </>
      )}
      <ErrorLine error={error} id="session-error" />
      {session && (
        <>
          <div class="section-head">
            <h1>
              <Amount amount={session.amount} currency={session.currency} />
            </h1>
            <span id="session-status" data-status={session.status}>
              <StatusBadge status={session.status} />
            </span>
          </div>
          <dl class="fields">
            <Field label="Session">{session.id}</Field>
            <Field label="Reference">{session.reference ?? '—'}</Field>
            <Field label="Description">{session.description ?? '—'}</Field>
            <Field label="Destination">
              {session.destination.type} {session.destination.value}
            </Field>
            <Field label="Creditor">
              {session.creditorIban} at {session.creditorBank.handle}
            </Field>
            <Field label="Payer's bank">{session.debtorBank?.handle ?? '—'}</Field>
            <Field label="Settlement">{session.settlementType ?? '—'}</Field>
            <Field label="Failure">{session.failureCode ?? '—'}</Field>
            <Field label="Checkout">
              <a href={session.checkoutUrl} rel="noreferrer" target="_blank">
                {session.checkoutUrl}
              </a>
            </Field>
          </dl>
          <h2>Metadata</h2>
          {session.metadata.length === 0 ? (
            <p class="meta" id="session-metadata-none">
              No metadata. Set it when creating the session, or with PATCH /payments/sessions/{session.id}.
            </p>
          ) : (
            <dl class="fields" id="session-metadata">
              {session.metadata.map((entry) => (
                <Field key={entry.key} label={entry.key}>
                  {entry.value}
                </Field>
              ))}
            </dl>
          )}
          <h2>Timeline</h2>
          <ol class="timeline" id="timeline">
            {sessionTimeline(session, refundTimeline(refunds.refunds, exponents)).map((entry) => (
              <li key={`${entry.label}-${entry.at}`}>
                <span class="timeline-label">{entry.label}</span>{' '}
                <time dateTime={entry.at}>{formatTime(entry.at)}</time>
                {entry.detail && <span class="meta"> · {entry.detail}</span>}
              </li>
            ))}
          </ol>
          {session.status === 'COMPLETED' && (
            <>
              <h2>Refunds</h2>
              <RefundPanel session={session} refunds={refunds} />
            </>
          )}
          <h2>Webhook deliveries</h2>
          <DeliveryList aggregateId={session.id} refreshKey={session.status} />
        </>
      )}
    </section>
  );
}
