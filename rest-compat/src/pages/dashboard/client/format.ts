/** How the dashboard writes amounts, times and statuses. No DOM here, so specs run it in node. */

/** Digits after the point per currency (ISO 4217), handed over by the server from the kernel's table. */
export type CurrencyExponents = Record<string, number>;

/** 12500 LYD (3 decimals) -> "12.500 LYD": minor units are integers, and so is the arithmetic. */
export function formatAmount(amount: number, currency: string, exponents: CurrencyExponents): string {
  const exponent = exponents[currency] ?? 2;
  const sign = amount < 0 ? '-' : '';
  const absolute = Math.abs(amount);
  const scale = 10 ** exponent;
  const major = Math.floor(absolute / scale).toLocaleString('en-US');
  return exponent === 0
    ? `${sign}${major} ${currency}`
    : `${sign}${major}.${String(absolute % scale).padStart(exponent, '0')} ${currency}`;
}

/** "2026-11-24T06:42:33.123Z" -> "2026-11-24 06:42:33 UTC": one zone for everyone reading a log together. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.replace('T', ' ').slice(0, 19)} UTC`;
}

/** Session statuses after which nothing changes (the subscription completes there too). */
export const FINAL_SESSION_STATUSES: readonly string[] = ['COMPLETED', 'FAILED', 'EXPIRED'];

export const isFinalSession = (status: string): boolean => FINAL_SESSION_STATUSES.includes(status);

export interface TimelineEntry {
  label: string;
  at: string;
  detail?: string;
}

/**
 * A session's timeline, oldest first: its status changes as the API records them (statusHistory),
 * or, without them, what its own timestamps say (creation and the final move); a PENDING session
 * also shows when it expires.
 */
export function sessionTimeline(session: {
  status: string;
  createdAt: string;
  updatedAt: string;
  completedAt?: string | null;
  failedAt?: string | null;
  expiredAt?: string | null;
  expiresAt?: string | null;
  failureCode?: string | null;
  statusHistory?: ReadonlyArray<{ status: string; at: string; failureCode: string | null }>;
}): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  if (session.statusHistory?.length) {
    for (const change of session.statusHistory)
      entries.push({
        label: change.status,
        at: change.at,
        ...(change.failureCode ? { detail: change.failureCode } : {}),
      });
  } else {
    entries.push({ label: 'PENDING', at: session.createdAt });
    if (session.completedAt) entries.push({ label: 'COMPLETED', at: session.completedAt });
    if (session.failedAt)
      entries.push({
        label: 'FAILED',
        at: session.failedAt,
        ...(session.failureCode ? { detail: session.failureCode } : {}),
      });
    if (session.expiredAt) entries.push({ label: 'EXPIRED', at: session.expiredAt });
  }
  if (session.status === 'PENDING' && session.expiresAt)
    entries.push({ label: 'Expires if unpaid', at: session.expiresAt });
  // Stable: two moves in the same millisecond keep the order the API gave them.
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => a.entry.at.localeCompare(b.entry.at) || a.index - b.index)
    .map(({ entry }) => entry);
}

/** A delivery whose last attempt did not get a 2xx: worth a retry by hand (the API retries any status). */
export function deliveryNeedsRetry(delivery: {
  status: string;
  attempts: number;
  lastStatusCode: number | null;
}): boolean {
  if (delivery.status === 'FAILED') return true;
  const lastOk = delivery.lastStatusCode != null && delivery.lastStatusCode >= 200 && delivery.lastStatusCode < 300;
  return delivery.status === 'PENDING' && delivery.attempts > 0 && !lastOk;
}

/** Newest first, as the API pages them: createdAt, then id. New and updated rows replace old ones by id. */
export function mergeNewestFirst<T extends { id: string; createdAt: string }>(
  current: readonly T[],
  incoming: readonly T[],
): T[] {
  const byId = new Map(current.map((item) => [item.id, item]));
  for (const item of incoming) byId.set(item.id, item);
  return [...byId.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}
