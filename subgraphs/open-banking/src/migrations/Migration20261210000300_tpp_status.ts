import { Migration } from '@gateway/db';

/**
 * A TPP's status (API-CONTRACT "Operator controls"): SUSPENDED by an operator, its tpk_ token and
 * every code and token of its consents answer TPP_SUSPENDED (the vault's mark, written with this).
 * Every TPP registered before is ACTIVE.
 */
export class Migration20261210000300_tpp_status extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "open_banking"."tpps" add column "status" text not null default 'ACTIVE' constraint "tpps_status_check" check ("status" in ('ACTIVE', 'SUSPENDED'));`,
    );
  }
}
