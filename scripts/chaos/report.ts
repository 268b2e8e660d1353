import type { Client } from './client';
import type { Driver } from './driver';
import { evidenceTable, percentile, seconds, type EvidenceRow, type WebhookOrder } from './evidence';
import type { FaultCounts } from './faults';
import type { Findings } from './invariants';
import { log } from './log';
import type { SubscriptionSample } from './subscription-sample';
import type { TakeoverWatch } from './takeover';

/** Everything the closing report draws on. */
export interface ReportInput {
  driver: Driver;
  client: Client;
  faults: FaultCounts;
  takeover: TakeoverWatch;
  webhooks: WebhookOrder;
  subscriptions: SubscriptionSample;
  moneyBefore: number;
  findings: Findings;
}

/** Prints the run's figures, each invariant with PASS or FAIL, then the evidence table (issue 17 item 8). */
export function printReport(input: ReportInput): void {
  logFigures(input);
  for (const r of input.findings.checks) log(`${r.ok ? 'PASS' : 'FAIL'} ${r.name}: ${r.figure}`);
  for (const line of evidenceTable(evidenceRows(input))) process.stdout.write(`${line}\n`);
}

const sumOf = (counts: Record<string, number>, which: (kind: string) => boolean) =>
  Object.entries(counts)
    .filter(([k]) => which(k))
    .reduce((n, [, v]) => n + v, 0);

/** What was driven and done to the platform, then what went wrong where (the first few of each). */
function logFigures({ driver, client, faults, takeover, webhooks, subscriptions, findings }: ReportInput): void {
  log(
    `payments driven: ${JSON.stringify(driver.driven)} (total ${driver.total}); refused or unanswered: ${JSON.stringify(driver.refused)}`,
  );
  const refunds = driver.refunds;
  if (refunds)
    log(
      `refunds driven: ${JSON.stringify(refunds.driven)}; answered: ${JSON.stringify(refunds.answers)}; stored: ${JSON.stringify(findings.refunds?.byStatus ?? {})}, FAILED by failure_code ${JSON.stringify(findings.refunds?.failureCodes ?? {})}; offered sessions not COMPLETED within the wait: ${refunds.notCompleted}`,
    );
  log(`client retries (no answer, 5xx, 409 IDEMPOTENCY_KEY_IN_USE, 429) by call: ${JSON.stringify(client.retries)}`);
  log(
    `chaos: kills ${JSON.stringify(faults.kills)}, faults ${JSON.stringify(faults.faults)}, RabbitMQ cuts ${faults.amqp_cuts} (${faults.amqp_connections_dropped} connections dropped)`,
  );
  const takenBy = (how: string) => takeover.samples.filter((sample) => sample.how === how).length;
  log(
    `takeover: ${takeover.samples.length} payments held at ${sumOf(faults.kills, (k) => k.startsWith('payments'))} payments kills; ` +
      `${takenBy('taken over')} taken over, ${takenBy('moved by its owner')} moved by a live owner, ${takenBy('not moved')} not moved in 120 s` +
      (takeover.takeoverMs.length
        ? `; slowest: ${[...takeover.samples]
            .sort((a, b) => b.ms - a.ms)
            .slice(0, 3)
            .map((t) => `${t.sessionId} ${seconds(t.ms)} after ${t.signal}`)
            .join(', ')}`
        : ''),
  );
  const { cap, refused, sampler } = findings.netDebit;
  log(
    `net debit cap ${cap.cap} on ${cap.bank} ${cap.currency}: refused ${JSON.stringify(refused)}; positions sampled ${sampler.samples} times, highest ${[
      ...sampler.capped.values(),
    ]
      .map((m) => `${m.key} ${m.max}`)
      .join(', ')}, reserved at most ${sampler.maxReserved}`,
  );
  if (webhooks.examples.length) log(`webhooks out of order, first ones: ${webhooks.examples.join('; ')}`);
  const { watched } = subscriptions;
  const violating = watched.filter((w) => w.order.repeated + w.order.backwards > 0);
  if (violating.length)
    log(
      `subscription statuses repeated or backwards: ${violating
        .slice(0, 5)
        .map((w) => `${w.sessionId} [${w.order.seen.join(' ')}]`)
        .join('; ')}`,
    );
  const endedElsewhere = watched.filter((w) => w.order.lastStatus !== findings.storedStatus.get(w.sessionId));
  if (endedElsewhere.length) {
    log(
      `subscriptions not ending on the stored status: ${endedElsewhere
        .slice(0, 5)
        .map((w) => `${w.sessionId} [${w.order.seen.join(' ')}] stored ${findings.storedStatus.get(w.sessionId)}`)
        .join('; ')}`,
    );
  }
  const topCauses = Object.entries(client.requests.causes)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6);
  if (topCauses.length)
    log(
      `failed attempts of the requests that failed after one retry: ${topCauses.map(([k, n]) => `${k} x${n}`).join(', ')}`,
    );
}

/** The evidence table's rows: the figures asked for, each with its target. */
function evidenceRows({
  driver,
  client,
  faults,
  takeover,
  webhooks,
  subscriptions,
  moneyBefore,
  findings,
}: ReportInput): EvidenceRow[] {
  const { driven } = driver;
  const { checks } = findings;
  const taken = takeover.takeoverMs;
  const p99 = percentile(taken, 99);
  const kills = Object.values(faults.kills).reduce((n, v) => n + v, 0);
  const bySignal = (signal: string) => sumOf(faults.kills, (k) => k.endsWith(signal));
  const passed = (name: string) => checks.find((r) => r.name.startsWith(name))?.ok ?? false;
  // The invariants with a row of their own are left out of the last row.
  const others = checks.filter(
    (r) =>
      !/^(the sum of all balances|no core reference debited|webhooks in order|subscription statuses|each refund moved|no refund executed twice|refunds never exceed|net debit )/.test(
        r.name,
      ),
  );
  const { watched, repeated, backwards } = subscriptions;
  const endedOnTruth = watched.filter((w) => w.order.lastStatus === findings.storedStatus.get(w.sessionId)).length;
  const requests = client.requests;
  return [
    {
      figure: 'payments driven',
      value: `${driver.total} (${driven.same_bank} same bank, ${driven.cross_bank} cross bank, ${driven.payment_order} orders, ${driven.mandate_charge} charges)`,
      target: '',
      kind: 'figure',
      ok: true,
    },
    ...refundRows(driver, findings),
    ...netDebitRows(findings),
    {
      figure: 'kills',
      value: `${kills} (${bySignal('SIGKILL')} SIGKILL, ${bySignal('SIGTERM')} SIGTERM): ${Object.entries(faults.kills)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
      target: '',
      kind: 'figure',
      ok: true,
    },
    {
      figure: 'money lost (sum of balances after - before)',
      value: String(moneyBefore - findings.moneyAfter),
      target: '0',
      kind: 'invariant',
      ok: passed('the sum of all balances'),
    },
    {
      figure: 'double debits (core references debited twice)',
      value: String(findings.doubleDebits),
      target: '0',
      kind: 'invariant',
      ok: passed('no core reference debited'),
    },
    {
      figure: 'takeover p50 / p99 / max',
      value: `${seconds(percentile(taken, 50))} / ${seconds(p99)} / ${seconds(taken.length ? Math.max(...taken) : undefined)} (${taken.length} taken over of ${takeover.samples.length} held)`,
      // No takeover this run (no kill met a held payment, or its live owner moved it): no verdict, nothing was shown.
      target: taken.length ? 'p99 <= 5 s' : 'p99 <= 5 s (no takeover this run)',
      kind: taken.length ? 'target' : 'figure',
      ok: p99 !== undefined && p99 <= 5_000,
    },
    {
      figure: 'webhooks out of order',
      value: `${webhooks.outOfOrder} of ${webhooks.deliveries} deliveries (${webhooks.aggregates} aggregates)`,
      target: '0',
      kind: 'invariant',
      ok: webhooks.outOfOrder === 0,
    },
    {
      figure: 'webhook redeliveries (same event id)',
      value: `${webhooks.redeliveries}${webhooks.withoutSequence ? `; ${webhooks.withoutSequence} without sequence` : ''}`,
      target: 'at least once',
      kind: 'figure',
      ok: true,
    },
    {
      figure: 'subscription statuses repeated / backwards',
      value: `${repeated} / ${backwards} over ${watched.length} sessions (${subscriptions.reconnects} reconnects, ${endedOnTruth} ended on the stored status)`,
      target: '0',
      kind: 'invariant',
      ok: repeated + backwards === 0,
    },
    {
      figure: 'client requests failed after one retry',
      value: `${requests.failedAfterOneRetry.platform} platform, ${requests.failedAfterOneRetry.bank} injected bank faults, of ${requests.requests} (${requests.retriedOnce} needed one retry)`,
      target: '0 platform',
      kind: 'target',
      ok: requests.failedAfterOneRetry.platform === 0,
    },
    {
      figure: 'client requests failed for good',
      value: `${requests.failedForGood.platform} platform, ${requests.failedForGood.bank} injected bank faults`,
      target: '0',
      kind: 'target',
      ok: requests.failedForGood.platform + requests.failedForGood.bank === 0,
    },
    {
      figure: 'other invariants (lines above)',
      value: `${others.filter((r) => r.ok).length} of ${others.length} PASS`,
      target: 'all PASS',
      kind: 'invariant',
      ok: others.every((r) => r.ok),
    },
  ];
}

/** The refunds' rows (none when the run drove no refunds): what was asked and stored, and their three invariants in one row. */
function refundRows(driver: Driver, findings: Findings): EvidenceRow[] {
  const refunds = driver.refunds;
  const figures = findings.refunds;
  if (!refunds || !figures) return [];
  const { driven } = refunds;
  const passed = (name: string) => findings.checks.find((r) => r.name.startsWith(name))?.ok ?? false;
  const stored = Object.entries(figures.byStatus)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  return [
    {
      figure: 'refunds driven',
      value: `${driven.requests} requests on ${driven.sessions} sessions (${driven.full} full, ${driven.partial} partial, ${driven.raced} races, ${driven.replayed} replays; ${driven.same_bank} same bank, ${driven.cross_bank} cross bank): ${stored || 'none stored'}`,
      target: '',
      kind: 'figure',
      ok: true,
    },
    {
      figure: 'refunds wrong at the cores / executed twice / over the session amount',
      value: `${figures.money.wrong.length + figures.money.stray.length} / ${figures.executedTwice} / ${figures.overAmount} (${figures.money.checked} final refunds checked)`,
      target: '0 / 0 / 0',
      kind: 'invariant',
      ok: passed('each refund moved') && passed('no refund executed twice') && passed('refunds never exceed'),
    },
  ];
}

/** The net debit caps' rows (issue 48): what the cap refused, and its two invariants (A sampled, B once quiet and sampled). */
function netDebitRows(findings: Findings): EvidenceRow[] {
  const { cap, refused, sampler, leftOver, reservations, unequal, positions } = findings.netDebit;
  const passed = (name: string) => findings.checks.find((r) => r.name.startsWith(name))?.ok ?? false;
  const total = refused.sessions + refused.charges + refused.orders;
  const maxima = [...sampler.capped.values()];
  return [
    {
      figure: 'refused by a net debit cap',
      value: `${total} (${refused.sessions} sessions, ${refused.charges} charges, ${refused.orders} orders); cap ${cap.cap} on ${cap.bank} ${cap.currency}`,
      target: 'some (the cap is reached)',
      kind: 'target',
      ok: total > 0,
    },
    {
      figure: 'net debit position max vs cap (sampled): samples above the cap',
      value: `${maxima.map((m) => `${m.max} vs ${m.cap}`).join(', ') || 'no capped position'}: ${sampler.aboveCap} of ${sampler.samples}`,
      target: '0',
      kind: 'invariant',
      ok: passed('net debit positions never above'),
    },
    {
      figure: 'net debit reservations left over / positions not obligations + reservations',
      value: `${leftOver.length} of ${reservations} / ${unequal.length} of ${positions} once quiet (${sampler.mismatches} rows not equal over ${sampler.samples} samples)`,
      target: '0 / 0',
      kind: 'invariant',
      ok: passed('net debit reservations all owned'),
    },
  ];
}
