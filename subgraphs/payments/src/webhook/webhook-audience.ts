import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { ID_PREFIX, type PrincipalKind } from '@gateway/kernel';

/**
 * Who an event's webhooks go to: a merchant (mer_…), a TPP (tpp_…), the operator, or a bank
 * (liquidity events, issue 48). Merchants and TPPs have a primary endpoint (their webhook_url)
 * and live in one world; the operator and banks have endpoints only, each in the world it was
 * created for.
 */
export type WebhookAudience = 'merchant' | 'tpp' | 'operator' | 'bank';

/**
 * The operator's audience id (every admin key speaks for it). It has a colon, which no merchant
 * or TPP id and no bank handle (`^[a-z][a-z0-9-]{1,31}$`) can have: it is nobody else's, and no
 * suspension (auth.suspended_owners lists participants' ids and handles) ever holds its deliveries.
 */
export const OPERATOR_AUDIENCE = 'operator:platform';

/**
 * A bank's audience id is bank:<handle>, not the bare handle: the bare handle is what
 * auth.suspended_owners lists while the bank is suspended, and a suspended bank must still hear
 * that it is near its cap (its deliveries are never HELD; its key, refused 403 BANK_SUSPENDED,
 * cannot manage its endpoints meanwhile).
 */
export const BANK_AUDIENCE_PREFIX = 'bank:';

export const bankAudience = (bankHandle: string): string => `${BANK_AUDIENCE_PREFIX}${bankHandle}`;

/** Which kind of audience an audience id names. */
export function audienceOf(audienceId: string): WebhookAudience {
  if (audienceId === OPERATOR_AUDIENCE) return 'operator';
  if (audienceId.startsWith(BANK_AUDIENCE_PREFIX)) return 'bank';
  if (audienceId.startsWith(`${ID_PREFIX.tpp}_`)) return 'tpp';
  return 'merchant';
}

/** The principals that own webhook endpoints and events. */
const OWNER_KINDS: PrincipalKind[] = ['merchant', 'tpp', 'admin', 'bank'];

/**
 * The audience id of the calling owner, without asking anyone: a merchant's or TPP's own id, the
 * operator's for every admin key, bank:<handle> for a bank key. Anything else: FORBIDDEN.
 */
export function webhookAudienceOf(context: SubgraphContext): { audienceId: string; audience: WebhookAudience } {
  const principal = requirePrincipal(context, OWNER_KINDS, 'INVALID_API_KEY');
  switch (principal.kind) {
    case 'admin':
      // A named admin key or ADMIN_KEY alike: the operator is one audience (the audit log names the key).
      return { audienceId: OPERATOR_AUDIENCE, audience: 'operator' };
    case 'bank':
      return { audienceId: bankAudience(principal.id), audience: 'bank' };
    case 'tpp':
      return { audienceId: principal.id, audience: 'tpp' };
    default:
      return { audienceId: principal.id, audience: 'merchant' };
  }
}
