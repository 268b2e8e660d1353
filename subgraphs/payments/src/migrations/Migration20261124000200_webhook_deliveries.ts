import { Migration } from '@gateway/db';

/** Webhook deliveries (one per event and merchant) and every attempt made for them. */
export class Migration20261124000200_webhook_deliveries extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "payments"."webhook_deliveries" (
      "id" text not null primary key,
      "event_id" text not null,
      "event_kind" text not null,
      "merchant_id" text not null,
      "aggregate_id" text not null,
      "payload" text not null,
      "url" text null,
      "status" text not null,
      "attempts" integer not null default 0,
      "last_status_code" integer null,
      "last_error" text null,
      "next_attempt_at" timestamptz null,
      "lease_until" timestamptz null,
      "delivered_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "webhook_deliveries_event_merchant_unique" unique ("event_id", "merchant_id"),
      constraint "webhook_deliveries_status_check" check ("status" in ('PENDING', 'DELIVERED', 'FAILED')));`);
    this.addSql(
      `create index "webhook_deliveries_due_index" on "payments"."webhook_deliveries" ("next_attempt_at") where "status" = 'PENDING';`,
    );
    this.addSql(
      `create index "webhook_deliveries_merchant_index" on "payments"."webhook_deliveries" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(`create table "payments"."webhook_attempts" (
      "id" bigserial primary key,
      "delivery_id" text not null references "payments"."webhook_deliveries" ("id") on delete cascade,
      "number" integer not null,
      "url" text null,
      "started_at" timestamptz not null,
      "duration_ms" integer not null,
      "status_code" integer null,
      "error" text null);`);
    this.addSql(
      `create index "webhook_attempts_delivery_index" on "payments"."webhook_attempts" ("delivery_id", "number");`,
    );
  }
}
