import { ApiError, callsAnswered } from './api';

/**
 * Signing in and out. The merchant key is sent once, to POST /dashboard/session, which answers
 * with an HttpOnly session cookie (8 hours, SameSite=Strict): nothing here stores the key or can
 * read the session, and every later call is authenticated by the cookie alone.
 */
const SESSION_PATH = '/dashboard/session';

interface ErrorAnswer {
  error?: { code?: string; message?: string; detail?: string };
}

export async function startSession(key: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(SESSION_PATH, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError('NETWORK_ERROR', 'The gateway could not be reached. Check the connection and try again.');
  }
  if (response.ok) return;
  const answer = (await response.json().catch(() => ({}))) as ErrorAnswer;
  throw new ApiError(
    answer.error?.code ?? 'INTERNAL_ERROR',
    answer.error?.message ?? `The gateway answered HTTP ${response.status}.`,
  );
}

/** Ends the session at the gateway (the cookie no longer works anywhere) and clears it, once the dashboard's calls are answered. */
export async function endSession(): Promise<void> {
  await callsAnswered();
  await fetch(SESSION_PATH, { method: 'DELETE', credentials: 'same-origin', cache: 'no-store' }).catch(() => undefined);
}
