import { useState } from 'preact/hooks';

/**
 * A secret the API shows this once (a new endpoint's, a rotated one): with a copy button and the
 * warning that it will not be shown again. Kept in this component's state only; "I have stored it"
 * drops it, and nothing else on the page or in the browser holds it.
 */
export function SecretOnce({
  secret,
  title,
  codeId,
  hideId,
  onHide,
}: {
  secret: string;
  title: string;
  codeId: string;
  hideId: string;
  onHide: () => void;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret-box" role="status">
      <p>
        <strong>{title}, shown this once.</strong> Store it in your endpoint's configuration now: it won't be shown
        again, and this page does not keep it.
      </p>
      <code id={codeId}>{secret}</code>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          id={`${codeId}-copy`}
          onClick={() =>
            void navigator.clipboard
              ?.writeText(secret)
              .then(() => setCopied(true))
              .catch(() => undefined)
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="secondary" id={hideId} onClick={onHide}>
          I have stored it
        </button>
      </div>
    </div>
  );
}
