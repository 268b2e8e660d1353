import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent } from '@gateway/events';
import type { BankEntity } from '../bank/bank.entity';

/**
 * A change of how the gateway reaches the bank's core. Services that cache bank routing
 * (packages/federation bank-changes.ts, which listens to `bank.*`) drop it on this event, so
 * the next core call asks again and presents the new key. Never carries a secret.
 */
export const BANK_INTERNAL_KEY_ROTATED = 'bank.internal_key_rotated';

/** Written with the rotation (the outbox): relayed once the rotation commits, never without it. */
export function recordInternalKeyRotated(em: EntityManager, bank: BankEntity, at: Date): void {
  recordEvent(
    em,
    {
      kind: BANK_INTERNAL_KEY_ROTATED,
      aggregateType: 'bank',
      aggregateId: bank.handle,
      data: { bank_handle: bank.handle, institution_code: bank.institutionCode, rotated_at: at.toISOString() },
    },
    at,
  );
}
