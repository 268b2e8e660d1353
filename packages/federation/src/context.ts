import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, type Logger, type Principal, type PrincipalKind } from '@gateway/kernel';

/** What every resolver receives: who is calling, the request id, and a request-scoped EntityManager. */
export interface SubgraphContext {
  principal: Principal;
  requestId: string;
  em: EntityManager;
  logger: Logger;
}

/** Refuses the call unless the principal is one of the given kinds (UNAUTHORIZED when anonymous). */
export function requirePrincipal(
  context: SubgraphContext,
  kinds: PrincipalKind[],
  code: 'UNAUTHORIZED' | 'INVALID_API_KEY' | 'INVALID_BANK_KEY' = 'UNAUTHORIZED',
): Principal & { id: string } {
  const { principal } = context;
  if (principal.kind === 'anonymous') throw new GatewayError(code, `requires one of: ${kinds.join(', ')}`);
  if (!kinds.includes(principal.kind))
    throw new GatewayError('FORBIDDEN', `not allowed for a ${principal.kind} credential`);
  return principal as Principal & { id: string };
}
