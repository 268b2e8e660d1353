import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

export type BankStatus = 'ACTIVE' | 'SUSPENDED';
/** A settlement account held in one currency. */
export interface SettlementAccount {
  currency: string;
  iban: string;
}

export type ObScope = 'accounts:read' | 'balances:read' | 'transactions:read' | 'payments:write';

/** A bank registered with the gateway (database shape; the graph shape is bank.type.ts). */
@Entity({ tableName: 'banks' })
export class BankEntity {
  @PrimaryKey({ type: 'text' })
  handle!: string;

  @Property({ type: 'text' })
  displayName!: string;

  @Property({ type: 'text' })
  country!: string;

  @Property({ type: 'text', unique: true })
  institutionCode!: string;

  @Property({ type: 'text' })
  coreBaseUrl!: string;

  /** The settlement account for every currency without one of its own in settlementAccounts. */
  @Property({ type: 'text' })
  settlementAccountIban!: string;

  /** Settlement accounts for particular currencies (a bank's LYD account cannot take a USD position). */
  @Property({ type: 'json' })
  settlementAccounts: SettlementAccount[] = [];

  @Property({ type: 'text' })
  contactEmail!: string;

  /** The internal key, sealed: the gateway presents it on every core call (kernel seal.ts). */
  @Property({ type: 'text' })
  internalKeySealed!: string;

  /** The bank's own test core: test objects' core calls go here (else to the gateway's built-in test bank), never to coreBaseUrl. */
  @Property({ type: 'text', nullable: true })
  sandboxCoreBaseUrl: string | null = null;

  /** The sandbox core's internal key, sealed like the live one (null with no sandbox core). */
  @Property({ type: 'text', nullable: true })
  sandboxInternalKeySealed: string | null = null;

  @Property({ type: 'text' })
  status: BankStatus = 'ACTIVE';

  /** Per-transaction limits in minor units, applied in whatever currency a payment uses. */
  @Property({ type: 'bigint' })
  minAmount!: bigint;

  @Property({ type: 'bigint' })
  maxAmount!: bigint;

  @Property({ type: 'boolean' })
  obEnabled = false;

  @Property({ type: 'json' })
  obScopesSupported: ObScope[] = [];

  @Property({ type: 'bigint' })
  scaExemptionLimit!: bigint;

  /** Exempted payment orders a consent may make since its last SCA; the next one needs SCA. */
  @Property({ type: 'integer' })
  scaExemptionMaxCount!: number;

  /** Their cumulative amount (minor units of the order's currency) since the last SCA; an order taking it above needs SCA. */
  @Property({ type: 'bigint' })
  scaExemptionCumulativeLimit!: bigint;

  @Property({ type: 'integer' })
  maxConsentExpiryDays!: number;

  @Property({ type: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
