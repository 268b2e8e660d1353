import type { Logger } from '@gateway/kernel';
import type { AccountBook } from '../ledger/accounts';
import type { MovementBook } from '../ledger/movements';
import type { FaultInjector } from '../faults';
import type { GatewayLink } from '../gateway/gateway-link';
import type { CreditConfirmations } from '../gateway/confirmations';

/** Everything a route of one sandbox bank needs. */
export interface SandboxContext {
  handle: string;
  institutionCode: string;
  accounts: AccountBook;
  movements: MovementBook;
  faults: FaultInjector;
  gateway: GatewayLink;
  confirmations: CreditConfirmations;
  /** The current internal key (the gateway may hand out a new one at registration). */
  internalKey(): string;
  configureGateway(config: { url: string; bankKey?: string; internalKey?: string }): Promise<void>;
  logger: Logger;
}
