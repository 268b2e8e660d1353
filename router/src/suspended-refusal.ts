import { GatewayError, type ErrorCode } from '@gateway/kernel';
import type { CredentialKind } from '@gateway/vault';

/**
 * The code a live credential of a suspended participant is refused with (API-CONTRACT "Operator
 * controls"), by what the credential is: the merchant's keys and dashboard sessions, the bank's
 * key, the TPP's own token and the Open Banking tokens of its consents. 403: the credential is
 * good, its holder may not act now; it works again once the operator resumes the participant.
 * Internal keys never verify as suspended (vault SUSPENSION_EXEMPT) and session tokens belong to
 * a payment session, not a participant.
 */
const SUSPENDED: Partial<Record<CredentialKind, ErrorCode>> = {
  merchant_key: 'MERCHANT_SUSPENDED',
  dashboard_session: 'MERCHANT_SUSPENDED',
  bank_key: 'BANK_SUSPENDED',
  tpp_key: 'TPP_SUSPENDED',
  ob_access_token: 'TPP_SUSPENDED',
  ob_refresh_token: 'TPP_SUSPENDED',
  ob_authorization_code: 'TPP_SUSPENDED',
  ob_client_token: 'TPP_SUSPENDED',
  ob_registration_token: 'TPP_SUSPENDED',
};

export function suspendedRefusal(kind: CredentialKind): GatewayError {
  const code = SUSPENDED[kind];
  return code ? new GatewayError(code) : new GatewayError('FORBIDDEN', 'the holder of this credential is suspended');
}
