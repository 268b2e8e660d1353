import { useEffect, useState } from 'preact/hooks';
import { describeError, type ApiError } from '../../dashboard/client/api';
import { formatTime } from '../../dashboard/client/format';
import { ErrorLine, StatusBadge, usePoll } from '../../dashboard/client/shared';
import { graphql } from './api';
import { Confirm } from './confirm';
import { counted } from './impact';
import { ADMIN_KEYS, CREATE_ADMIN_KEY, REVOKE_ADMIN_KEY, type AdminKeyRow, type Operator } from './operations';

/** The live keys a revocation takes with it: those the key made, and theirs (the API revokes the same lineage). */
export function lineageOf(id: string, keys: readonly AdminKeyRow[]): AdminKeyRow[] {
  const taken: AdminKeyRow[] = [];
  let makers = new Set([id]);
  while (makers.size) {
    const children = keys.filter((key) => key.createdBy !== null && makers.has(key.createdBy) && !taken.includes(key));
    taken.push(...children);
    makers = new Set(children.map((key) => key.id));
  }
  return taken.filter((key) => key.revokedAt === null);
}

/** Named admin keys: who made each, create (the secret shown once, with a copy step), revoke with its lineage. */
export function AdminKeysView({
  operator,
  onError,
}: {
  operator: Operator;
  onError: (error: ApiError | null) => void;
}) {
  const { data, error, refresh } = usePoll(
    async () => (await graphql<{ adminKeys: AdminKeyRow[] }>(ADMIN_KEYS)).adminKeys,
    15_000,
    [],
  );
  useEffect(() => onError(error), [error]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; adminKey: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<AdminKeyRow | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<ApiError | null>(null);

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setActionError(null);
    try {
      await work();
      await refresh();
    } catch (caught) {
      const refused = describeError(caught);
      setActionError(refused);
      onError(refused);
    } finally {
      setBusy(false);
    }
  };
  const create = () =>
    act(async () => {
      const { createAdminKey } = await graphql<{ createAdminKey: { name: string; adminKey: string } }>(
        CREATE_ADMIN_KEY,
        { name: name.trim() },
      );
      setCreated(createAdminKey);
      setCopied(false);
      setName('');
    });
  const revoke = (key: AdminKeyRow) =>
    act(async () => {
      setRevoking(null);
      await graphql(REVOKE_ADMIN_KEY, { id: key.id });
    });

  const keys = data ?? [];
  const nameOf = (id: string | null) =>
    id === null ? 'unknown' : id === 'ADMIN_KEY' ? 'ADMIN_KEY' : (keys.find((key) => key.id === id)?.name ?? id);
  const lineage = revoking ? lineageOf(revoking.id, keys) : [];
  const ownKey = revoking !== null && revoking.id === operator.keyId;
  // Read again when the confirmation opens (the list is polled): the counts it states are current.
  useEffect(() => {
    if (revoking) void refresh();
  }, [revoking?.id]);
  const consoleSessions = revoking
    ? [keys.find((key) => key.id === revoking.id) ?? revoking, ...lineage].reduce(
        (sum, key) => sum + (key.consoleSessionCount ?? 0),
        0,
      )
    : 0;

  return (
    <section class="card">
      <h1>Admin keys</h1>
      <p class="meta">
        One named key per operator; the configured ADMIN_KEY lives in the environment and is not listed. Revoking a key
        revokes every key it made, and theirs, and ends their console sessions.
      </p>
      <form
        class="toolbar"
        id="create-key-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (name.trim()) void create();
        }}
      >
        <div class="filter-field">
          <label for="new-key-name">New key for</label>
          <input
            id="new-key-name"
            placeholder="operator name"
            value={name}
            onInput={(event) => setName((event.target as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" id="create-key" disabled={busy}>
          Create key
        </button>
      </form>
      {created && (
        <div class="secret-box" role="status" id="created-key">
          <p>
            <strong>The key for {created.name}, shown this once.</strong> Hand it to its operator now: it won't be shown
            again, and this page does not keep it.
          </p>
          <code id="created-key-secret">{created.adminKey}</code>
          <div class="actions">
            <button
              type="button"
              class="secondary"
              id="created-key-copy"
              onClick={() =>
                void navigator.clipboard
                  ?.writeText(created.adminKey)
                  .then(() => setCopied(true))
                  .catch(() => undefined)
              }
            >
              {copied ? 'Copied' : 'Copy'}
            </button>
            <button type="button" class="secondary" id="created-key-hide" onClick={() => setCreated(null)}>
              I have handed it over
            </button>
          </div>
        </div>
      )}
      <ErrorLine error={error ?? actionError} id="keys-error" />
      <ul class="rows" id="admin-keys">
        {keys.map((key) => (
          <li key={key.id} data-id={key.id} data-name={key.name} class="admin-key">
            <div class="row-main">
              <strong>{key.name}</strong> <span class="meta">{key.id}</span>{' '}
              <StatusBadge status={key.revokedAt ? 'REVOKED' : 'ACTIVE'} />
            </div>
            <div class="meta">
              created {formatTime(key.createdAt)} by <span class="key-maker">{nameOf(key.createdBy)}</span>
              {key.revokedAt ? ` · revoked ${formatTime(key.revokedAt)}` : ''}
            </div>
            {!key.revokedAt && (
              <button type="button" class="danger revoke-key" onClick={() => setRevoking(key)}>
                Revoke…
              </button>
            )}
          </li>
        ))}
      </ul>
      <Confirm
        open={revoking !== null}
        title={`Revoke ${revoking?.name ?? ''}?`}
        action="Revoke"
        busy={busy}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && void revoke(revoking)}
      >
        <p>
          The key stops working at once: its next request is refused (401 UNAUTHORIZED) and its console sessions end.
        </p>
        <p id="revoke-lineage">
          {lineage.length === 0
            ? 'It made no live key.'
            : `${lineage.length} key${lineage.length === 1 ? '' : 's'} it made will be revoked with it: ${lineage
                .map((key) => key.name)
                .join(', ')}.`}
        </p>
        <p id="revoke-sessions">
          <strong>
            {counted(lineage.length + 1, 'key')} revoked, {counted(consoleSessions, 'console session')} signed in with{' '}
            {lineage.length ? 'them' : 'it'} end{consoleSessions === 1 ? 's' : ''}.
          </strong>
        </p>
        {ownKey && <p class="error">This is the key you are signed in with: the console will sign you out.</p>}
      </Confirm>
    </section>
  );
}
