import { useState } from 'preact/hooks';
import { describeError, graphql, type ApiError } from './api';
import { DeliveryList } from './deliveries';
import { ROTATE_WEBHOOK_SECRET } from './operations';
import { EndpointList } from './endpoints';
import { SecretOnce } from './secret-once';
import { ErrorLine, Field, useDashboard } from './shared';

/**
 * Where webhooks go: the endpoints (each with its own secret and event filter), the primary
 * webhook URL's secret rotation (the new secret shown once, kept nowhere), and every delivery.
 */
export function WebhooksView() {
  const { merchant } = useDashboard();
  return (
    <>
      <EndpointList />
      <section class="card">
        <h2>Primary webhook URL</h2>
        <dl class="fields">
          <Field label="Endpoint">{merchant.webhookUrl ?? 'none set (PATCH /merchants/{id} with webhook_url)'}</Field>
        </dl>
        <SecretRotation />
      </section>
      <section class="card">
        <h2>Deliveries</h2>
        <DeliveryList filterable />
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
        <SecretOnce
          secret={secret}
          title="Your new webhook secret"
          codeId="new-webhook-secret"
          hideId="hide-secret"
          onHide={() => setSecret(null)}
        />
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
