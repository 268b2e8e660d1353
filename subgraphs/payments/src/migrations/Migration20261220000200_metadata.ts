import { Migration } from '@gateway/db';

const TABLES = ['payment_sessions', 'mandates', 'mandate_charges', 'refunds'] as const;

/**
 * Metadata (issue 30): the merchant's own key-value pairs on sessions, mandates, charges and
 * refunds, a JSON object of strings ({} when none). Lists filter by one key=value with
 * `metadata @> {"key": "value"}`, which a GIN index in jsonb_path_ops serves (smaller than the
 * default operator class, and containment is the only operator used).
 */
export class Migration20261220000200_metadata extends Migration {
  override async up(): Promise<void> {
    for (const table of TABLES) {
      this.addSql(`alter table "payments"."${table}" add column "metadata" jsonb not null default '{}'::jsonb;`);
      this.addSql(
        `alter table "payments"."${table}" add constraint "${table}_metadata_object_check" check (jsonb_typeof("metadata") = 'object');`,
      );
      this.addSql(
        `create index "${table}_metadata_index" on "payments"."${table}" using gin ("metadata" jsonb_path_ops);`,
      );
    }
  }
}
