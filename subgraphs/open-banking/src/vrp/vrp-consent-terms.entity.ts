import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { Currency } from '@gateway/kernel';
import type { PeriodAlignment, PeriodType } from './vrp-limits';

/** A periodic limit as stored (jsonb): its amount as a decimal string of minor units, never a float. */
export interface StoredPeriodicLimit {
  period_type: PeriodType;
  period_alignment: PeriodAlignment;
  amount: string;
}

/**
 * What a VRP consent (a consent of kind vrp) allows: the payee, the currency and the control
 * parameters the customer approved (issue 51). One row per VRP consent, written with it; the
 * consent's status lives in consents. `paymentsAccepted` counts the consent's accepted payments
 * and is the version every acceptance is conditional on (vrp-payment.moves.ts): two payments
 * judged against the same usage cannot both be accepted. Written only through vrp-terms.ts and
 * vrp-payment.moves.ts.
 */
@Entity({ tableName: 'vrp_consent_terms' })
export class VrpConsentTermsEntity {
  /** con_…: the consent these terms belong to. */
  @PrimaryKey({ type: 'text' })
  consentId!: string;

  /** The payee as the TPP named it. */
  @Property({ type: 'text' })
  creditorType!: 'iban' | 'alias';

  @Property({ type: 'text' })
  creditorValue!: string;

  /** The payee's IBAN and bank, resolved when the consent was created. */
  @Property({ type: 'text' })
  creditorIban!: string;

  @Property({ type: 'text' })
  creditorBank!: string;

  @Property({ type: 'text' })
  currency!: Currency;

  /** The TPP's reference for the consent, shown to the customer. */
  @Property({ type: 'text' })
  reference!: string;

  @Property({ type: 'bigint' })
  maximumIndividualAmount!: bigint;

  @Property({ type: 'json' })
  periodicLimits: StoredPeriodicLimit[] = [];

  @Property({ type: 'timestamptz' })
  validFrom!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  validTo: Date | null = null;

  @Property({ type: 'integer' })
  paymentsAccepted = 0;
}
