import { Migration } from '@gateway/db';

/**
 * Refunds of mandate charges (issue 51, item 4): a refund gives back a COMPLETED session or a
 * COMPLETED mandate charge, exactly one of the two (a check says so), and a charge, like a
 * session, counts what refunds not FAILED gave back of it, which a check keeps within its amount
 * whatever the code does. A charge's refund keeps its mandate too (the REST path names both).
 */
export class Migration20270102000100_mandate_charge_refunds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "payments"."mandate_charges" add column "amount_refunded" bigint not null default 0;`);
    this.addSql(
      `alter table "payments"."mandate_charges" add constraint "mandate_charges_amount_refunded_check" check ("amount_refunded" >= 0 and "amount_refunded" <= "amount");`,
    );
    this.addSql(`alter table "payments"."refunds" alter column "session_id" drop not null;`);
    this.addSql(
      `alter table "payments"."refunds" add column "charge_id" text null references "payments"."mandate_charges" ("id");`,
    );
    this.addSql(`alter table "payments"."refunds" add column "mandate_id" text null;`);
    this.addSql(
      `alter table "payments"."refunds" add constraint "refunds_refunded_check" check (("session_id" is null) <> ("charge_id" is null) and ("charge_id" is null) = ("mandate_id" is null));`,
    );
    this.addSql(
      `create index "refunds_charge_index" on "payments"."refunds" ("charge_id", "created_at" desc, "id" desc) where "charge_id" is not null;`,
    );
  }
}
