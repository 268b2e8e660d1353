import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '@gateway/events';
import type { BankEntity } from './bank.entity';

/**
 * A bank suspended or resumed by an operator. Written to the banks outbox with the status change
 * (relayed once it commits, never without it); the services caching bank routing listen to
 * `bank.*` (packages/federation bank-changes.ts) and drop their cache, so new work at the bank is
 * refused (or taken again) from the next request, not when the cached answer ages out.
 */
export function recordBankStatusChanged(em: EntityManager, bank: BankEntity, at: Date): void {
  recordEvent(
    em,
    {
      kind: bank.status === 'SUSPENDED' ? 'bank.suspended' : 'bank.resumed',
      aggregateType: 'bank',
      aggregateId: bank.handle,
      data: {
        bank_handle: bank.handle,
        institution_code: bank.institutionCode,
        status: bank.status,
        at: at.toISOString(),
      },
    },
    at,
  );
}
