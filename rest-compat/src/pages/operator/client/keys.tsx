import { useState } from 'preact/hooks';
import { describeError, type ApiError } from '../../dashboard/client/api';
import { formatTime } from '../../dashboard/client/format';
import { ErrorLine } from '../../dashboard/client/shared';
import { graphql } from './api';
import { Confirm } from './confirm';
import { counted, ImpactLine, useImpact, type Impact } from './impact';
import type { ParticipantKind } from './operations';

/** What an action answered: a secret to show once, and what else the person must know. */
interface Outcome {
  secret?: string;
  note: string;
}

interface KeyAction {
  id: string;
  label: string;
  /** What it will do, said in the confirmation before it is done (API-CONTRACT "Operator controls"). */
  effect: string;
  run: (id: string) => Promise<Outcome>;
  /** What it reaches, with numbers (the participant's counts, read when the confirmation opens). */
  impact?: (impact: Impact) => string[];
}

const ACTIONS: Record<ParticipantKind, KeyAction[]> = {
  merchant: [
    {
      id: 'rotate-merchant-key',
      label: 'Rotate API key',
      effect:
        'Its current API key stops working at once, and so do its dashboard sessions. The new key is shown here once, to hand to the merchant.',
      impact: ({ dashboardSessionCount }) => [
        `${counted(dashboardSessionCount ?? 0, 'signed-in dashboard session')} end${dashboardSessionCount === 1 ? 's' : ''}`,
      ],
      run: async (id) => {
        const { rotateMerchantKey } = await graphql<{ rotateMerchantKey: { apiKey: string } }>(
          'mutation OperatorRotateMerchantKey($id: ID!) { rotateMerchantKey(id: $id) { apiKey } }',
          { id },
        );
        return { secret: rotateMerchantKey.apiKey, note: 'The previous key is refused from now on.' };
      },
    },
  ],
  bank: [
    {
      id: 'rotate-internal-key',
      label: 'Rotate internal key',
      effect:
        'A new internal key is shown here once: the gateway presents it on every core call from now on, and the bank’s core must send it on its callbacks. The previous key is still accepted on callbacks for the grace period (INTERNAL_KEY_GRACE_SECONDS, a day by default).',
      run: async (id) => {
        const { rotateInternalKey } = await graphql<{
          rotateInternalKey: { internalKey: string; previousKeyExpiresAt: string };
        }>(
          'mutation OperatorRotateInternalKey($handle: String!) { rotateInternalKey(handle: $handle) { internalKey previousKeyExpiresAt } }',
          { handle: id },
        );
        return {
          secret: rotateInternalKey.internalKey,
          note: `The previous internal key is accepted on callbacks until ${formatTime(rotateInternalKey.previousKeyExpiresAt)}.`,
        };
      },
    },
    {
      id: 'revoke-bank-key',
      label: 'Revoke bank key',
      effect:
        'The bank’s key stops working at once: its next request is refused with INVALID_BANK_KEY, until it is given a new one (Issue a new bank key).',
      run: async (id) => {
        const { revokeBankKey } = await graphql<{ revokeBankKey: { revokedKeys: number } }>(
          'mutation OperatorRevokeBankKey($handle: String!) { revokeBankKey(handle: $handle) { revokedKeys } }',
          { handle: id },
        );
        return { note: `${revokeBankKey.revokedKeys} bank key${revokeBankKey.revokedKeys === 1 ? '' : 's'} revoked.` };
      },
    },
    {
      id: 'rotate-bank-key',
      label: 'Issue a new bank key',
      effect:
        'The bank’s current key, if it has one, stops working at once. The new key is shown here once, to hand to the bank.',
      run: async (id) => {
        const { rotateBankKey } = await graphql<{ rotateBankKey: { bankKey: string } }>(
          'mutation OperatorRotateBankKey($handle: String!) { rotateBankKey(handle: $handle) { bankKey } }',
          { handle: id },
        );
        return { secret: rotateBankKey.bankKey, note: 'Any previous bank key is refused from now on.' };
      },
    },
  ],
  tpp: [
    {
      id: 'rotate-tpp-token',
      label: 'Rotate TPP token',
      effect: 'Its current tpk_ token stops working at once. The new one is shown here once, to hand to the TPP.',
      run: async (id) => {
        const { rotateTppToken } = await graphql<{ rotateTppToken: { tppAccessToken: string } }>(
          'mutation OperatorRotateTppToken($id: ID!) { rotateTppToken(id: $id) { tppAccessToken } }',
          { id },
        );
        return { secret: rotateTppToken.tppAccessToken, note: 'The previous token is refused from now on.' };
      },
    },
  ],
};

/** A participant's keys: rotate or revoke, each behind a confirmation; a new secret is shown once and dropped on request. */
export function ParticipantKeys({
  kind,
  id,
  onDone,
  onError,
}: {
  kind: ParticipantKind;
  id: string;
  onDone: () => void;
  onError: (error: ApiError | null) => void;
}) {
  const [pending, setPending] = useState<KeyAction | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [copied, setCopied] = useState(false);
  const counts = useImpact(kind, id, pending?.impact !== undefined);

  const run = async (action: KeyAction) => {
    setBusy(true);
    setError(null);
    setOutcome(null);
    setPending(null);
    try {
      setOutcome(await action.run(id));
      setCopied(false);
      onDone();
    } catch (caught) {
      const refused = describeError(caught);
      setError(refused);
      onError(refused);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="keys" id="participant-keys">
      <h2>Keys</h2>
      <div class="actions">
        {ACTIONS[kind].map((action) => (
          <button
            key={action.id}
            type="button"
            class="secondary"
            id={action.id}
            disabled={busy}
            onClick={() => setPending(action)}
          >
            {action.label}…
          </button>
        ))}
      </div>
      <ErrorLine error={error} id="keys-action-error" />
      {outcome && (
        <div class="secret-box" role="status" id="key-outcome">
          {outcome.secret && (
            <>
              <p>
                <strong>Shown this once.</strong> Hand it over now: it won't be shown again, and this page does not keep
                it.
              </p>
              <code id="new-secret">{outcome.secret}</code>
            </>
          )}
          <p id="key-outcome-note">{outcome.note}</p>
          <div class="actions">
            {outcome.secret && (
              <button
                type="button"
                class="secondary"
                id="new-secret-copy"
                onClick={() =>
                  void navigator.clipboard
                    ?.writeText(outcome.secret!)
                    .then(() => setCopied(true))
                    .catch(() => undefined)
                }
              >
                {copied ? 'Copied' : 'Copy'}
              </button>
            )}
            <button type="button" class="secondary" id="key-outcome-hide" onClick={() => setOutcome(null)}>
              {outcome.secret ? 'I have handed it over' : 'Done'}
            </button>
          </div>
        </div>
      )}
      <Confirm
        open={pending !== null}
        idPrefix="key-confirm"
        title={`${pending?.label ?? ''} for ${id}?`}
        action={pending?.label ?? ''}
        busy={busy}
        onCancel={() => setPending(null)}
        onConfirm={() => pending && void run(pending)}
      >
        <p>{pending?.effect}</p>
        {pending?.impact && (
          <ImpactLine
            id="key-confirm-impact"
            lines={counts.impact ? pending.impact(counts.impact) : []}
            error={counts.error}
            waiting={!counts.impact}
          />
        )}
      </Confirm>
    </div>
  );
}
