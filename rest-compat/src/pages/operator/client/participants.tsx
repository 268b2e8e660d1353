import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from '../../dashboard/client/api';
import { formatTime } from '../../dashboard/client/format';
import { ErrorLine, StatusBadge, hrefOf, usePoll } from '../../dashboard/client/shared';
import { graphql } from './api';
import { PARTICIPANTS, type BankRow, type MerchantRow, type TppRow } from './operations';

interface Row {
  kind: 'bank' | 'merchant' | 'tpp';
  id: string;
  name: string;
  status: string;
  /** test or live: merchants and TPPs (a bank has a live core and a test one). */
  mode?: string;
  /** A TPP's security profile (spec or fapi2). */
  profile?: string;
  since?: string;
}

/** Banks, merchants and TPPs in one list; the search narrows merchants and TPPs on the server and banks here. */
export function ParticipantList({ onError }: { onError: (error: ApiError | null) => void }) {
  const [search, setSearch] = useState('');
  const { data, error } = usePoll(
    () =>
      graphql<{ merchants: MerchantRow[]; banks: BankRow[]; tpps: TppRow[] }>(PARTICIPANTS, {
        search: search.trim() || null,
      }),
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
        ...data.tpps.map((tpp): Row => ({
          kind: 'tpp',
          id: tpp.id,
          name: tpp.name,
          status: tpp.status,
          mode: tpp.mode,
          profile: tpp.securityProfile,
          since: tpp.createdAt,
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
                {row.profile && <span class="kind">{row.profile}</span>}
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
