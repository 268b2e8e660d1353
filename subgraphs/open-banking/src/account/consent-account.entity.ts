import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/core';

/**
 * One account a customer consented to share (contract "Consented accounts"): the stable acc_ id
 * a TPP sees for an IBAN within one consent. Written when the customer approves; the IBAN never
 * leaves the platform for an account outside the consent, and the same IBAN under another
 * consent has another acc_ id.
 */
@Entity({ tableName: 'consent_accounts' })
@Unique({ properties: ['consentId', 'iban'] })
export class ConsentAccountEntity {
  /** acc_… */
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  consentId!: string;

  /** Its consent's world: read from the bank's test core when false. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'text' })
  iban!: string;

  /** The consent's bank, whose core holds the account. */
  @Property({ type: 'text' })
  bankHandle!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
