import { Migration } from '@gateway/db';

/**
 * Webhook endpoints and the event log (API-CONTRACT "Webhook endpoints and events", issue 30).
 * - webhook_endpoints: a merchant's or TPP's further endpoints, each with its own sealed secret,
 *   event filter and world. The audience's webhook_url stays its primary endpoint; it has no row
 *   here (its URL and secret stay where they are) but an id of its own, 'we_' || audience id.
 * - webhook_events: every webhook-able event of an audience, kept 30 days, whether or not any
 *   endpoint gets it (GET /events, replay of a range). Backfilled from the deliveries so far.
 * - webhook_deliveries: one per event and endpoint (was: per event and audience); order is kept
 *   per endpoint and aggregate, so one dead endpoint holds back only its own deliveries. Every
 *   existing delivery went to the primary endpoint.
 */
export class Migration20261220000100_webhook_endpoints extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "payments"."webhook_endpoints" (
      "id" text not null primary key,
      "audience_id" text not null,
      "livemode" boolean not null,
      "url" text not null,
      "enabled_events" jsonb not null,
      "description" text null,
      "status" text not null,
      "secret_sealed" text not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "webhook_endpoints_status_check" check ("status" in ('ENABLED', 'DISABLED')));`);
    this.addSql(
      `create index "webhook_endpoints_audience_index" on "payments"."webhook_endpoints" ("audience_id", "created_at", "id");`,
    );

    this.addSql(`create table "payments"."webhook_events" (
      "id" text not null primary key,
      "audience_id" text not null,
      "kind" text not null,
      "livemode" boolean not null,
      "aggregate_id" text not null,
      "sequence" integer null,
      "payload" text not null,
      "created_at" timestamptz not null);`);
    this.addSql(
      `create index "webhook_events_audience_index" on "payments"."webhook_events" ("audience_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "webhook_events_aggregate_index" on "payments"."webhook_events" ("aggregate_id", "sequence");`,
    );
    this.addSql(`create index "webhook_events_created_index" on "payments"."webhook_events" ("created_at");`);
    this
      .addSql(`insert into "payments"."webhook_events" ("id", "audience_id", "kind", "livemode", "aggregate_id", "sequence", "payload", "created_at")
      select distinct on ("event_id") "event_id", "audience_id", "event_kind", "livemode", "aggregate_id", "sequence", "payload", "created_at"
      from "payments"."webhook_deliveries" where "created_at" > now() - interval '30 days' order by "event_id", "created_at"`);

    this.addSql(`alter table "payments"."webhook_deliveries" add column "endpoint_id" text null;`);
    this.addSql(`update "payments"."webhook_deliveries" set "endpoint_id" = 'we_' || "audience_id";`);
    this.addSql(`alter table "payments"."webhook_deliveries" alter column "endpoint_id" set not null;`);
    this.addSql(
      `alter table "payments"."webhook_deliveries" drop constraint "webhook_deliveries_event_audience_unique";`,
    );
    this.addSql(
      `alter table "payments"."webhook_deliveries" add constraint "webhook_deliveries_event_endpoint_unique" unique ("event_id", "endpoint_id");`,
    );
    this.addSql(`drop index "payments"."webhook_deliveries_aggregate_index";`);
    this.addSql(
      `create index "webhook_deliveries_aggregate_index" on "payments"."webhook_deliveries" ("endpoint_id", "aggregate_id", "sequence");`,
    );
  }
}
