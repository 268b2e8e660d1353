import { useState } from 'preact/hooks';
import { ApiError } from './api';
import {
  EMPTY_FILTER,
  FilterError,
  toListQuery,
  type FilterForm,
  type FilterOptions,
  type ListFilter,
} from './filters';

/**
 * A list's filters: status, created between two UTC days, a search box (an id opens that object,
 * anything else is a reference or event name), one metadata key=value for lists whose rows carry
 * metadata and, for sessions, an amount range in the currency picked beside it. Applied on submit,
 * so typing does not send a query per key.
 */
export function FilterBar({
  id,
  statuses,
  searchLabel,
  searchPlaceholder,
  currencies,
  metadata,
  onApply,
}: {
  /** Prefix of every element id: "sessions" -> #sessions-filter, #sessions-status, … */
  id: string;
  statuses: readonly string[];
  searchLabel: string;
  searchPlaceholder: string;
  /** Present for a list with an amount range: the currencies to type it in (first is the default). */
  currencies?: readonly string[];
  /** Whether the list filters by one metadata key=value (sessions, mandates, refunds). */
  metadata?: boolean;
  onApply: (form: FilterForm, currency: string | undefined) => void;
}) {
  const [form, setForm] = useState<FilterForm>(EMPTY_FILTER);
  const [currency, setCurrency] = useState(currencies?.[0]);
  const field = (name: keyof FilterForm) => ({
    id: `${id}-${name}`,
    value: form[name],
    onInput: (event: Event) => setForm({ ...form, [name]: (event.target as HTMLInputElement).value }),
  });
  return (
    <form
      class="filters"
      id={`${id}-filter`}
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(form, currency);
      }}
    >
      <div class="filter-search">
        <label for={`${id}-search`}>{searchLabel}</label>
        <input
          {...field('search')}
          type="search"
          placeholder={searchPlaceholder}
          autocomplete="off"
          spellcheck={false}
        />
      </div>
      <div class="filter-grid">
        <div>
          <label for={`${id}-status`}>Status</label>
          <select {...field('status')}>
            <option value="">Any</option>
            {statuses.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for={`${id}-from`}>Created from</label>
          <input {...field('from')} type="date" />
        </div>
        <div>
          <label for={`${id}-to`}>Created to</label>
          <input {...field('to')} type="date" />
        </div>
        {metadata && (
          <div>
            <label for={`${id}-metadata`}>Metadata</label>
            <input {...field('metadata')} placeholder="key=value" autocomplete="off" spellcheck={false} />
          </div>
        )}
        {currencies && (
          <>
            <div>
              <label for={`${id}-amountMin`}>Amount from</label>
              <input {...field('amountMin')} inputMode="decimal" autocomplete="off" placeholder="0" />
            </div>
            <div>
              <label for={`${id}-amountMax`}>Amount to</label>
              <input {...field('amountMax')} inputMode="decimal" autocomplete="off" placeholder="any" />
            </div>
            <div>
              <label for={`${id}-currency`}>Currency</label>
              <select
                id={`${id}-currency`}
                value={currency}
                onChange={(event) => setCurrency(event.currentTarget.value)}
              >
                {currencies.map((code) => (
                  <option key={code} value={code}>
                    {code}
                  </option>
                ))}
              </select>
            </div>
          </>
        )}
      </div>
      <div class="actions">
        <button type="submit" id={`${id}-apply`}>
          Apply
        </button>
        <button
          type="button"
          class="secondary"
          id={`${id}-clear`}
          onClick={() => {
            setForm(EMPTY_FILTER);
            onApply(EMPTY_FILTER, currency);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}

/** Sends a filter form to a list (`set`), or opens the one object a search by id names, or says which field is wrong (as the API would: VALIDATION_ERROR). */
export function applyFilter(
  form: FilterForm,
  options: FilterOptions,
  open: (id: string) => void,
  set: (filter: ListFilter) => void,
  refuse: (error: ApiError | null) => void,
): void {
  try {
    const query = toListQuery(form, options);
    refuse(null);
    if ('id' in query) open(query.id);
    else set(query.filter);
  } catch (caught) {
    if (!(caught instanceof FilterError)) throw caught;
    refuse(new ApiError('VALIDATION_ERROR', `${caught.field}: ${caught.message}`));
  }
}
