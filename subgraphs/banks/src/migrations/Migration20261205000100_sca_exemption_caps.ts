import { Migration } from '@gateway/db';

/**
 * Cumulative caps on SCA exemptions of Open Banking payment orders (PSD2 RTS art. 16: count and
 * amount of exempted remote payments since the last SCA). Existing banks get the defaults.
 */
export class Migration20261205000100_sca_exemption_caps extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "banks"."banks" add column "sca_exemption_max_count" integer not null default 5;`);
    this.addSql(
      `alter table "banks"."banks" add column "sca_exemption_cumulative_limit" bigint not null default 100000;`,
    );
  }
}
