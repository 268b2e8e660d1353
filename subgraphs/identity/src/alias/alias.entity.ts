import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

export type AliasStatus = 'ACTIVE' | 'INACTIVE';

/**
 * One entry of the national alias directory (database shape; the graph shape is alias.type.ts).
 * Indexes and the active-phone uniqueness live in the committed migration.
 */
@Entity({ tableName: 'aliases' })
export class AliasEntity {
  /** The npt_handle: unique for ever, an inactive handle is not released. */
  @PrimaryKey({ type: 'text' })
  handle!: string;

  /** Electronic format (upper case, no spaces). Several handles may point at one IBAN. */
  @Property({ type: 'text' })
  iban!: string;

  /** Taken from the IBAN at claim time: how a payment is routed to the bank. */
  @Property({ type: 'text' })
  institutionCode!: string;

  /** The bank that claimed the alias (the bank key's handle); only it may read private fields or deactivate. */
  @Property({ type: 'text' })
  bankHandle!: string;

  /** Stored in full; every reader outside the database sees it masked. */
  @Property({ type: 'text' })
  customerDisplayName!: string;

  /** The bank's own customer id, sent back to its core for OTP verification. */
  @Property({ type: 'text' })
  bankCustomerRef!: string;

  /** E.164; unique among ACTIVE aliases (partial unique index). */
  @Property({ type: 'text', nullable: true })
  phone?: string | null;

  @Property({ type: 'text' })
  status: AliasStatus = 'ACTIVE';

  @Property({ type: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  deactivatedAt?: Date | null;
}
