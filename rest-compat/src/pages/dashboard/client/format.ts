/** How the dashboard writes amounts, times and statuses. No DOM here, so specs run it in node. */
import { formatMoney } from '@gateway/sdk/money';

/** Digits after the point per currency (ISO 4217), handed over by the server from the kernel's table. */
export type CurrencyExponents = Record<string, number>;

/** 12500 LYD (3 decimals) -> "12.500 LYD": the platform's one formatter, with the server's exponents. */
export function formatAmount(amount: number, currency: string, exponents: CurrencyExponents): string {
  return formatMoney(amount, currency, exponents[currency] ?? 2);
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
 * also shows when it expires, a paid one its refunds.
 */
export function sessionTimeline(
  session: {
    status: string;
    createdAt: string;
    updatedAt: string;
    completedAt?: string | null;
    failedAt?: string | null;
    expiredAt?: string | null;
    expiresAt?: string | null;
    failureCode?: string | null;
    statusHistory?: ReadonlyArray<{ status: string; at: string; failureCode: string | null }>;
  },
  /** The session's refunds, placed among its moves by time (refundTimeline). */
  refunds: readonly TimelineEntry[] = [],
): TimelineEntry[] {
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
  entries.push(...refunds);
  // Stable: two moves in the same millisecond keep the order the API gave them.
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => a.entry.at.localeCompare(b.entry.at) || a.index - b.index)
    .map(({ entry }) => entry);
}

/** A refund as the timeline needs it. */
export interface RefundMoment {
  status: string;
  amount: number;
  currency: string;
  reason: string | null;
  failureCode: string | null;
  createdAt: string;
  completedAt: string | null;
  failedAt: string | null;
}

/** A session's refunds on its timeline: when each was asked (amount, reason) and how it ended. */
export function refundTimeline(refunds: readonly RefundMoment[], exponents: CurrencyExponents): TimelineEntry[] {
  return refunds.flatMap((refund) => {
    const amount = formatAmount(refund.amount, refund.currency, exponents);
    const entries: TimelineEntry[] = [
      { label: 'REFUND', at: refund.createdAt, detail: refund.reason ? `${amount} · ${refund.reason}` : amount },
    ];
    if (refund.completedAt) entries.push({ label: 'REFUND COMPLETED', at: refund.completedAt, detail: amount });
    if (refund.failedAt)
      entries.push({ label: 'REFUND FAILED', at: refund.failedAt, detail: refund.failureCode ?? amount });
    return entries;
  });
}

/**
 * What a merchant typed as an amount ("2.5", "2.500", "2") in minor units of the currency, or null
 * when it is not a positive amount with at most the currency's digits after the point. Integer
 * arithmetic on the digits, never a float.
 */
export function parseAmount(text: string, currency: string, exponents: CurrencyExponents): number | null {
  const exponent = exponents[currency] ?? 2;
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text.trim().replace(/,/g, ''));
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > exponent) return null;
  const minor = Number(`${match[1]}${fraction.padEnd(exponent, '0')}`);
  return Number.isSafeInteger(minor) && minor > 0 ? minor : null;
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
