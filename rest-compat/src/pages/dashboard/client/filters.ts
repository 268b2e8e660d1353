/**
 * What the lists' filter forms send: the API's filter inputs (PaymentSessionFilter, MandateFilter,
 * RefundFilter, WebhookDeliveryFilter) built from what a merchant typed. No DOM here, so specs run
 * it in node. Dates are UTC days: "from" is that day's midnight (inclusive), "to" the midnight
 * after the last day (exclusive), as the API's ranges are.
 */
import { parseAmount, type CurrencyExponents } from './format';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A range of UTC days as the API's instants; null when a day is not a date or the range is reversed. */
export function dayRange(from: string, to: string): { from?: string; to?: string } | null {
  const start = from ? Date.parse(`${from}T00:00:00.000Z`) : undefined;
  const end = to ? Date.parse(`${to}T00:00:00.000Z`) + 86_400_000 : undefined;
  if ((from && (!DAY.test(from) || Number.isNaN(start))) || (to && (!DAY.test(to) || Number.isNaN(end)))) return null;
  if (start !== undefined && end !== undefined && start >= end) return null;
  return {
    ...(start !== undefined ? { from: new Date(start).toISOString() } : {}),
    ...(end !== undefined ? { to: new Date(end).toISOString() } : {}),
  };
}

/**
 * GET /reports/{kind}.csv for the UTC days first..last, both included (the API's `to` is the day
 * after, exclusive); null when the range is reversed or a day is missing. Cookie-authenticated, so a plain link.
 */
export function reportHref(kind: 'sessions' | 'refunds', first: string, last: string): string | null {
  const range = first && last ? dayRange(first, last) : null;
  if (!range?.from || !range.to) return null;
  return `/reports/${kind}.csv?${new URLSearchParams({ from: first, to: range.to.slice(0, 10) }).toString()}`;
}

/** The filter form as typed: empty strings are "any". */
export interface FilterForm {
  status: string;
  from: string;
  to: string;
  search: string;
  amountMin: string;
  amountMax: string;
  /** One metadata pair, typed key=value (MetadataFilter). */
  metadata: string;
}

export const EMPTY_FILTER: FilterForm = {
  status: '',
  from: '',
  to: '',
  search: '',
  amountMin: '',
  amountMax: '',
  metadata: '',
};

/** A list's filter input as the API takes it (PaymentSessionFilter, RefundFilter, …). */
export type ListFilter = Record<string, string | number | { key: string; value: string }>;

/** What a list asks the API for: one object by id, or a page under a filter. */
export type ListQuery = { id: string } | { filter: ListFilter };

/** A form that cannot be sent, named by its field as the API would (VALIDATION_ERROR). */
export class FilterError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export interface FilterOptions {
  /** The list's id prefix ("ops_"): a search that starts with it opens that one object. */
  idPrefix: string;
  /** Lists with an amount range (sessions): what is typed is in this currency's major units. */
  amounts?: { currency: string; exponents: CurrencyExponents };
  /** The search box's field when it is not an id: reference (sessions, refunds, charges) or event (deliveries); absent, it takes ids only (mandates). */
  searchField?: string;
  /** Lists whose rows carry metadata (sessions, mandates, refunds): the key=value field is sent as `metadata`. */
  metadata?: boolean;
}

/**
 * "order_id=1042" as a MetadataFilter: the key up to the first "=", the value after it (it may
 * hold "=" or inner spaces), both trimmed as a form field is ("channel = web" is channel=web). Key
 * and value limits are the API's to check: a refusal is its VALIDATION_ERROR naming metadata.
 */
export function metadataPair(text: string): { key: string; value: string } {
  const at = text.indexOf('=');
  const key = at < 0 ? '' : text.slice(0, at).trim();
  const value = at < 0 ? '' : text.slice(at + 1).trim();
  if (!key || !value) throw new FilterError('metadata', 'Type one pair as key=value, e.g. order_id=1042.');
  return { key, value };
}

/** The form as the API's filter, or the id to open; a FilterError names the field that is wrong. */
export function toListQuery(form: FilterForm, options: FilterOptions): ListQuery {
  const search = form.search.trim();
  if (search.startsWith(options.idPrefix)) return { id: search };
  const filter: ListFilter = {};
  if (form.status) filter.status = form.status;
  const range = dayRange(form.from, form.to);
  if (!range) throw new FilterError('createdTo', 'Pick a first day on or before the last day.');
  if (range.from) filter.createdFrom = range.from;
  if (range.to) filter.createdTo = range.to;
  if (search && !options.searchField)
    throw new FilterError('search', `Search by id here: ${options.idPrefix}… (filter by status, days or metadata).`);
  if (search && options.searchField) filter[options.searchField] = search;
  if (options.metadata && form.metadata.trim()) filter.metadata = metadataPair(form.metadata);
  if (options.amounts) {
    const { currency, exponents } = options.amounts;
    for (const [field, text] of [
      ['amountMin', form.amountMin],
      ['amountMax', form.amountMax],
    ] as const) {
      if (!text.trim()) continue;
      const minor = parseAmount(text, currency, exponents);
      if (minor === null) throw new FilterError(field, `Not an amount of ${currency}: ${text.trim()}`);
      filter[field] = minor;
    }
    if (
      typeof filter.amountMin === 'number' &&
      typeof filter.amountMax === 'number' &&
      filter.amountMin > filter.amountMax
    )
      throw new FilterError('amountMax', 'The largest amount is below the smallest.');
  }
  return { filter };
}

/** Whether a form narrows the list at all (an unfiltered list is the one that is polled and followed live). */
export const isFiltered = (form: FilterForm): boolean => Object.values(form).some((value) => value.trim() !== '');
