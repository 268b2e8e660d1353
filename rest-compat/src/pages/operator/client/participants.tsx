import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../../dashboard/client/api';
import { formatTime } from '../../dashboard/client/format';
import { ErrorLine, StatusBadge, hrefOf, usePoll } from '../../dashboard/client/shared';
import { graphql } from './api';
import { PARTICIPANTS, type BankRow, type MerchantRow } from './operations';

interface Row {
  kind: 'bank' | 'merchant';
  id: string;
  name: string;
  status: string;
  /** test or live: merchants only (a bank has a live core and a test one). */
  mode?: string;
  since?: string;
}

/** Banks and merchants in one list; the search narrows merchants on the server and both here. A TPP is opened by its id. */
export function ParticipantList({ onError }: { onError: (error: ApiError | null) => void }) {
  const [search, setSearch] = useState('');
  const [tppId, setTppId] = useState('');
  const { data, error } = usePoll(
    () => graphql<{ merchants: MerchantRow[]; banks: BankRow[] }>(PARTICIPANTS, { search: search.trim() || null }),
    15_000,
    [search],
  );
  useEffect(() => onError(error), [error]);
  const term = search.trim().toLowerCase();
  const rows: Row[] = data
    ? [
        ...data.banks
          .filter((bank) => !term || `${bank.handle} ${bank.displayName}`.toLowerCase().includes(term))
          .map((bank): Row => ({ kind: 'bank', id: bank.handle, name: bank.displayName, status: bank.status })),
        ...data.merchants.map((merchant): Row => ({
          kind: 'merchant',
          id: merchant.id,
          name: merchant.name,
          status: merchant.status,
          mode: merchant.mode,
          since: merchant.createdAt,
        })),
      ]
    : [];
  return (
    <section class="card">
      <h1>Participants</h1>
      <div class="toolbar">
        <label for="participant-search">Search</label>
        <input
          id="participant-search"
          type="search"
          placeholder="Name, handle or id"
          value={search}
          onInput={(event) => setSearch((event.target as HTMLInputElement).value)}
        />
        <form
          class="tpp-open"
          onSubmit={(event) => {
            event.preventDefault();
            if (tppId.trim()) location.hash = hrefOf('participants', 'tpp', tppId.trim());
          }}
        >
          <label for="tpp-id">TPP id</label>
          <input
            id="tpp-id"
            placeholder="tpp_…"
            value={tppId}
            onInput={(e) => setTppId((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="secondary">
            Open
          </button>
        </form>
      </div>
      <ErrorLine error={error} id="participants-error" />
      {!data && !error && <p class="meta">Loading…</p>}
      {data && rows.length === 0 && <p class="meta">No participant matches.</p>}
      <ul class="rows" id="participants">
        {rows.map((row) => (
          <li key={`${row.kind}/${row.id}`} data-id={row.id} data-kind={row.kind}>
            <a href={hrefOf('participants', row.kind, row.id)} class="row-link">
              <span class="row-main">
                <strong>{row.name}</strong> <span class="meta">{row.id}</span>
              </span>
              <span class="row-tags">
                <span class="kind">{row.kind}</span>
                {row.mode && <span class={`mode mode-${row.mode}`}>{row.mode.toUpperCase()}</span>}
                <StatusBadge status={row.status} />
              </span>
              {row.since && <span class="meta row-since">since {formatTime(row.since)}</span>}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
