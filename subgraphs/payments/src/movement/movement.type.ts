import type { Metadata } from '../metadata/metadata.rules';
import { toMetadataEntries } from '../metadata/metadata.type';
import type { EngineMovementColumns } from './movement.columns';
import { publicMovementStatus } from './movement.transitions';

/**
 * The fields a merchant's movement (a refund, a mandate charge) shows in the graph the same way,
 * from the columns every kind shares: each kind's type adds its own (its session, its mandate)
 * and names its status enum (RefundStatus, MandateChargeStatus: the public statuses, same names).
 */
export function movementFields(entity: EngineMovementColumns & { metadata: Metadata }) {
  return {
    id: entity.id,
    livemode: entity.livemode,
    status: publicMovementStatus(entity.status),
    amount: Number(entity.amount),
    currency: entity.currency,
    settlementType: entity.settlementType,
    failureCode: entity.failureCode,
    failureDetail: entity.failureDetail,
    createdAt: entity.createdAt,
    completedAt: entity.completedAt,
    failedAt: entity.failedAt,
    metadata: toMetadataEntries(entity.metadata),
  };
}
