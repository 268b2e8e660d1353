import { useEffect, useState } from 'preact/hooks';
import { describeError, type ApiError } from '../../dashboard/client/api';
import { ErrorLine } from '../../dashboard/client/shared';
import { graphql } from './api';

/** "1 open payment session", "3 open payment sessions". */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The admin-only counts a confirmation states (issue 50), read from the public API when it opens. */
export interface Impact {
  openPaymentSessionCount?: number | null;
  dashboardSessionCount?: number | null;
  authorisedConsentCount?: number | null;
}

const MERCHANT_IMPACT = `query OperatorMerchantImpact($id: ID!) {
  merchant(id: $id) { id openPaymentSessionCount dashboardSessionCount }
}`;
const TPP_IMPACT = `query OperatorTppImpact($id: ID!) { tpp(id: $id) { id authorisedConsentCount } }`;

async function readImpact(kind: string, id: string): Promise<Impact | null> {
  if (kind === 'merchant') return (await graphql<{ merchant: Impact }>(MERCHANT_IMPACT, { id })).merchant;
  if (kind === 'tpp') return (await graphql<{ tpp: Impact }>(TPP_IMPACT, { id })).tpp;
  return null;
}

/** The counts for a participant, read afresh each time `open` turns true (a dialog opening). */
export function useImpact(kind: string, id: string, open: boolean): { impact: Impact | null; error: ApiError | null } {
  const [impact, setImpact] = useState<Impact | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    setImpact(null);
    setError(null);
    if (!open) return undefined;
    let current = true;
    readImpact(kind, id)
      .then((answer) => current && setImpact(answer))
      .catch((caught) => current && setError(describeError(caught)));
    return () => {
      current = false;
    };
  }, [kind, id, open]);
  return { impact, error };
}

/** The numbered sentence of a confirmation: "Counting…" until the counts are read, the API's refusal if they are not. */
export function ImpactLine({
  id,
  lines,
  error,
  waiting,
}: {
  id: string;
  lines: string[];
  error: ApiError | null;
  waiting: boolean;
}) {
  if (error) return <ErrorLine error={error} id={`${id}-error`} />;
  if (waiting)
    return (
      <p class="meta" id={id} data-ready="false">
        Counting what it reaches…
      </p>
    );
  if (!lines.length) return null;
  return (
    <p id={id} data-ready="true">
      <strong>{lines.join('; ')}.</strong>
    </p>
  );
}

/** What suspending or resuming reaches, with its numbers. */
export function suspensionImpact(kind: string, action: 'suspend' | 'resume', impact: Impact): string[] {
  const sessions = impact.openPaymentSessionCount ?? 0;
  const dashboards = impact.dashboardSessionCount ?? 0;
  const consents = impact.authorisedConsentCount ?? 0;
  if (kind === 'merchant')
    return action === 'suspend'
      ? [
          `${counted(sessions, 'open payment session')} can no longer be paid`,
          `${counted(dashboards, 'signed-in dashboard session')} ${dashboards === 1 ? 'is' : 'are'} refused (403 MERCHANT_SUSPENDED) until it is resumed`,
        ]
      : [
          `${counted(sessions, 'open payment session')} can be paid again`,
          `${counted(dashboards, 'dashboard session')} work${dashboards === 1 ? 's' : ''} again`,
        ];
  if (kind === 'tpp')
    return action === 'suspend'
      ? [
          `${counted(consents, 'authorised consent')} stop${consents === 1 ? 's' : ''} working (403 TPP_SUSPENDED) until it is resumed, and the open subscriptions of ${consents === 1 ? 'its tokens' : 'their tokens'} close`,
        ]
      : [`${counted(consents, 'authorised consent')} work${consents === 1 ? 's' : ''} again`];
  return [];
}
