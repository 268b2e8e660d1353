import { Migration } from '@gateway/db';

/**
 * Issue 52 (the soak): a payment order's SCA exemption check (sca-exemption.ts) reads the orders of
 * its consent, and payment_orders had no index by consent. In the split-layout hour, order creation
 * went from ~35 ms to ~137 ms (p50) as each consent gathered orders; 2,000 orders of one consent
 * made it 600 ms (the statement scanned the table once per order of the consent).
 * The exempted orders since the last SCA are read by consent and time, with what they sum; the last
 * SCA is the latest order authorised at its sca_url.
 */
export class Migration20270111000100_payment_orders_by_consent extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "payment_orders_consent_exempt_index" on "open_banking"."payment_orders" ("consent_id", "created_at") include ("amount", "currency") where "sca_url" is null;`,
    );
    this.addSql(
      `create index "payment_orders_consent_sca_index" on "open_banking"."payment_orders" ("consent_id", "processing_at") where "sca_url" is not null;`,
    );
  }
}
