import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError } from '@gateway/kernel';
import { TppEntity } from './tpp.entity';

/**
 * A customer's step that would start new work for a TPP (approving its consent, authorising its
 * payment order at SCA) is refused while the operator has it suspended: its tokens are refused
 * (TPP_SUSPENDED) and a code or a payment it could not use, or should not get, is not made. The
 * consent or order stays as it was: the customer may try again once the TPP is resumed, until it
 * expires.
 */
export async function assertTppActive(em: EntityManager, tppId: string): Promise<void> {
  const tpp = await em.findOne(TppEntity, { id: tppId }, { fields: ['status'], disableIdentityMap: true });
  if (tpp?.status === 'SUSPENDED')
    throw new GatewayError('TPP_SUSPENDED', 'the provider asking is suspended by the operator; try again later');
}
