import { useState } from 'preact/hooks';
import { describeError, graphql, type ApiError } from './api';
import { DeliveryList } from './deliveries';
import { ROTATE_WEBHOOK_SECRET } from './operations';
import { ErrorLine, Field, useDashboard } from './shared';

/** Where webhooks go, the secret rotation (the new secret shown once, kept nowhere), and every delivery. */
export function WebhooksView() {
  const { merchant } = useDashboard();
  return (
    <>
      <section class="card">
        <h1>Webhooks</h1>
        <dl class="fields">
          <Field label="Endpoint">{merchant.webhookUrl ?? 'none set (PATCH /merchants/{id} with webhook_url)'}</Field>
        </dl>
        <SecretRotation />
      </section>
      <section class="card">
        <h2>Deliveries</h2>
        <DeliveryList />
      </section>
    </>
  );
}

function SecretRotation() {
  const { merchant } = useDashboard();
  const [confirming, setConfirming] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState(false);

  const rotate = async () => {
    setBusy(true);
    setError(null);
    try {
      const { rotateWebhookSecret } = await graphql<{ rotateWebhookSecret: { webhookSecret: string } }>(
        ROTATE_WEBHOOK_SECRET,
        { id: merchant.id },
      );
      setSecret(rotateWebhookSecret.webhookSecret);
      setConfirming(false);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="rotation">
      <h2>Signing secret</h2>
      <p class="meta">
        Every delivery is signed with the merchant's webhook secret. Rotating it takes effect at once: the old secret
        stops signing immediately.
      </p>
      {secret ? (
        <div class="secret-box" role="status">
          <p>
            <strong>Your new webhook secret, shown this once.</strong> Store it in your endpoint's configuration now;
            this page does not keep it.
          </p>
          <code id="new-webhook-secret">{secret}</code>
          <div class="actions">
            <button
              type="button"
              class="secondary"
              onClick={() =>
                void navigator.clipboard
                  ?.writeText(secret)
                  .then(() => setCopied(true))
                  .catch(() => undefined)
              }
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
            <button type="button" class="secondary" id="hide-secret" onClick={() => setSecret(null)}>
              I have stored it
            </button>
          </div>
        </div>
      ) : confirming ? (
        <div class="actions">
          <button type="button" class="danger" id="rotate-confirm" disabled={busy} onClick={() => void rotate()}>
            {busy ? 'Rotating…' : 'Rotate now: the old secret stops working'}
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" id="rotate-secret" onClick={() => setConfirming(true)}>
          Rotate webhook secret
        </button>
      )}
      <ErrorLine error={error} id="rotate-error" />
    </div>
  );
}
