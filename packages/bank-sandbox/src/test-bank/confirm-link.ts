import { GatewayError, httpStatusOf } from '@gateway/kernel';
import type { ConfirmationLink } from '../gateway/confirmations';
import type { CreditConfirmedBody } from '../gateway/gateway-link';

export type { CreditConfirmedBody };

/** How the test bank hands a rail credit's confirmation to the gateway of its process. */
export type ConfirmCredit = (bankHandle: string, body: CreditConfirmedBody) => Promise<void>;

/**
 * CreditConfirmations' link for one handle of the test bank: the gateway is in process, so no URL
 * and no key. A refusal the gateway would answer with a 4xx over HTTP (unknown session, mismatch)
 * is final, as it is for a sandbox bank; anything else thrown is retried with backoff.
 */
export function inProcessLink(bankHandle: string, confirm: ConfirmCredit): ConfirmationLink {
  return {
    configured: () => ({ url: 'in-process' }),
    async confirmCredit(body) {
      try {
        await confirm(bankHandle, body);
        return { status: 200, body: null };
      } catch (error) {
        const status = refusalStatusOf(error);
        if (status === undefined) throw error;
        return {
          status,
          body: { error: { code: (error as { code?: unknown }).code ?? 'REFUSED', message: (error as Error).message } },
        };
      }
    },
  };
}

/** The 4xx (but 429) status of a gateway refusal, thrown as a GatewayError or relayed as a GraphQL error. */
function refusalStatusOf(error: unknown): number | undefined {
  const extensions = (error as { extensions?: { status?: unknown } } | null)?.extensions;
  const status =
    error instanceof GatewayError
      ? httpStatusOf(error.code)
      : typeof extensions?.status === 'number'
        ? extensions.status
        : undefined;
  return status !== undefined && status >= 400 && status < 500 && status !== 429 ? status : undefined;
}
