import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { GatewayError } from '@gateway/kernel';
import { BankEntity } from './bank.entity';

/**
 * The bank row, locked until the caller's transaction ends: two credential changes of one bank
 * (key rotations, a revocation) run one after the other, so the second sees what the first
 * issued; two rotations racing leave exactly one current key, never two.
 */
export async function lockBank(tx: EntityManager, handle: string): Promise<BankEntity> {
  const bank = await tx.findOne(BankEntity, { handle }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!bank) throw new GatewayError('BANK_NOT_REGISTERED', `no bank with handle ${handle}`);
  return bank;
}
