import type { TppEntity } from './tpp.entity';

/** A TPP as the audit log shows it, in the REST field names; its tokens and webhook secret only as issued or replaced. */
export function tppAuditFields(tpp: TppEntity): Record<string, unknown> {
  return {
    name: tpp.name,
    mode: tpp.mode,
    redirect_uris: tpp.redirectUris,
    webhook_url: tpp.webhookUrl,
    // Named for fapi2 TPPs only: a spec TPP's entries read as they did before profiles existed.
    security_profile: tpp.securityProfile === 'fapi2' ? tpp.securityProfile : undefined,
    // The keys by kid: public, but the ids are what an operator compares.
    jwks_kids: tpp.jwks?.keys.map((key) => key.kid),
    software_id: tpp.softwareId ?? undefined,
  };
}
