import { Migration } from '@mikro-orm/migrations';

/**
 * `client_id`: the client (TPP) a credential was issued to, so the router can charge a token
 * request to that client's rate limit from the presented code or refresh token alone.
 * `used_at`: single-use credentials (authorization codes, refresh tokens) are spent by a
 * conditional update of this column; a spent credential presented again is a replay, which is
 * told apart from one revoked for another reason.
 */
export class Migration20261128000100_credential_client_use extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "auth"."credentials" add column if not exists "client_id" text null;');
    this.addSql('alter table "auth"."credentials" add column if not exists "used_at" timestamptz null;');
  }
}
