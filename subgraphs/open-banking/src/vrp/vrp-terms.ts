import type { EntityManager } from '@mikro-orm/postgresql';
import { VrpConsentTermsEntity, type StoredPeriodicLimit } from './vrp-consent-terms.entity';
import { periodOf, type ControlParameters, type PeriodicLimit } from './vrp-limits';

/*
 * The one writer of open_banking.vrp_consent_terms but for its version (vrp-payment.moves.ts
 * bumps it with each accepted payment), and the reader of what a consent's payments used.
 */

/** A limit's current period and what the consent's payments not FAILED used in it. */
export interface PeriodUsage {
  limit: PeriodicLimit;
  start: Date;
  end: Date;
  used: bigint;
}

export const storedLimit = (limit: PeriodicLimit): StoredPeriodicLimit => ({
  period_type: limit.periodType,
  period_alignment: limit.periodAlignment,
  amount: limit.amount.toString(),
});

export function controlParametersOf(terms: VrpConsentTermsEntity): ControlParameters {
  return {
    currency: terms.currency,
    maximumIndividualAmount: BigInt(terms.maximumIndividualAmount),
    periodicLimits: terms.periodicLimits.map((limit) => ({
      periodType: limit.period_type,
      periodAlignment: limit.period_alignment,
      amount: BigInt(limit.amount),
    })),
    validFrom: terms.validFrom,
    validTo: terms.validTo,
  };
}

/** The terms of a VRP consent, in the caller's transaction, created with it. */
export function createTerms(tx: EntityManager, terms: Omit<VrpConsentTermsEntity, 'paymentsAccepted'>): void {
  tx.create(VrpConsentTermsEntity, { ...terms, paymentsAccepted: 0 });
}

export function loadTerms(em: EntityManager, consentId: string): Promise<VrpConsentTermsEntity | null> {
  return em.findOne(VrpConsentTermsEntity, { consentId }, { disableIdentityMap: true });
}

/**
 * What the consent's payments not FAILED used in each limit's period holding `at`, and the
 * version (accepted payments) it was read at, in ONE statement so the two agree: a payment accepted
 * against this reading is written only if the version is still this one.
 */
export async function readUsage(
  em: EntityManager,
  terms: VrpConsentTermsEntity,
  at: Date,
): Promise<{ version: number; usage: PeriodUsage[] }> {
  const parameters = controlParametersOf(terms);
  const periods = parameters.periodicLimits.map((limit) => ({ limit, ...periodOf(limit, parameters.validFrom, at) }));
  const sums = periods.map(
    (_, index) =>
      `(select coalesce(sum(p."amount"), 0)::text from "open_banking"."vrp_payments" p
        where p."consent_id" = t."consent_id" and p."status" <> 'FAILED' and p."created_at" >= ? and p."created_at" < ?) as "u${index}"`,
  );
  const [row] = await em.execute<Array<Record<string, string | number>>>(
    `select t."payments_accepted" as "version"${sums.map((sum) => `, ${sum}`).join('')}
     from "open_banking"."vrp_consent_terms" t where t."consent_id" = ?`,
    [...periods.flatMap((period) => [period.start, period.end]), terms.consentId],
  );
  return {
    version: Number(row?.version ?? terms.paymentsAccepted),
    usage: periods.map((period, index) => ({ ...period, used: BigInt(row?.[`u${index}`] ?? 0) })),
  };
}
