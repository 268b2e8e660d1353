import type { TppEntity } from './tpp.entity';

/** A TPP as the audit log shows it, in the REST field names; its token and webhook secret only as issued or replaced. */
export function tppAuditFields(tpp: TppEntity): Record<string, unknown> {
  return { name: tpp.name, mode: tpp.mode, redirect_uris: tpp.redirectUris, webhook_url: tpp.webhookUrl };
}
