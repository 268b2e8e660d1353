import { SECRET_ISSUED, SECRET_REMOVED, SECRET_REPLACED, type AuditChange } from '@gateway/audit';
import type { BankEntity } from './bank.entity';

/**
 * A bank as the audit log shows it, in the REST field names: where its money and calls go (core
 * URLs, settlement accounts), its limits and its Open Banking and SCA settings. Amounts are minor
 * units as numbers (the log is JSON). Keys are recorded only as issued, replaced or removed.
 */
export function bankAuditFields(bank: BankEntity): Record<string, unknown> {
  return {
    display_name: bank.displayName,
    country: bank.country,
    institution_code: bank.institutionCode,
    status: bank.status,
    core_base_url: bank.coreBaseUrl,
    sandbox_core_base_url: bank.sandboxCoreBaseUrl,
    settlement_account_iban: bank.settlementAccountIban,
    settlement_accounts: bank.settlementAccounts,
    contact_email: bank.contactEmail,
    min_amount: Number(bank.minAmount),
    max_amount: Number(bank.maxAmount),
    ob_enabled: bank.obEnabled,
    ob_scopes_supported: bank.obScopesSupported,
    sca_exemption_limit: Number(bank.scaExemptionLimit),
    sca_exemption_max_count: bank.scaExemptionMaxCount,
    sca_exemption_cumulative_limit: Number(bank.scaExemptionCumulativeLimit),
    max_consent_expiry_days: bank.maxConsentExpiryDays,
  };
}

/**
 * How the sandbox core's internal key changed, from its sealed values (a new key is sealed
 * afresh, the same key is left as it was); undefined when it stayed.
 */
export function sandboxKeyChange(before: string | null, after: string | null): AuditChange | undefined {
  if (before === after) return undefined;
  if (after === null) return SECRET_REMOVED;
  return before === null ? SECRET_ISSUED : SECRET_REPLACED;
}
