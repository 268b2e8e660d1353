import { useEffect, useState } from 'preact/hooks';
import { describeError, type ApiError } from '../../dashboard/client/api';
import { ErrorLine } from '../../dashboard/client/shared';
import { graphql } from './api';
import type { Impact } from './impact-text';

export { counted, suspensionImpact, type Impact } from './impact-text';

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
