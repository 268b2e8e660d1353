import type { MerchantEntity } from './merchant.entity';

/**
 * A merchant as the audit log shows it, in the REST field names: every field an operator or the
 * merchant can set (the webhook secret and API keys are recorded only as issued or replaced).
 */
export function merchantAuditFields(merchant: MerchantEntity): Record<string, unknown> {
  return {
    name: merchant.name,
    mode: merchant.mode,
    status: merchant.status,
    webhook_url: merchant.webhookUrl,
    settlement_iban: merchant.settlementIban,
  };
}
