import type { SessionStatus } from '../session/session.transitions';

const REDIRECT_STATUS: Partial<Record<SessionStatus, string>> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  EXPIRED: 'expired',
};

/** API-CONTRACT: the payer returns to `redirect_url?session_id=…&status=completed|failed|expired`, once the session is final. */
export function redirectTo(redirectUrl: string | null, sessionId: string, status: SessionStatus): string | null {
  const outcome = REDIRECT_STATUS[status];
  if (!redirectUrl || !outcome) return null;
  const url = new URL(redirectUrl);
  url.searchParams.set('session_id', sessionId);
  url.searchParams.set('status', outcome);
  return url.toString();
}
