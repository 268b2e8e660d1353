import { ApiError, callsAnswered, sendCall } from '../../dashboard/client/api';

/**
 * The public GraphQL API as the console calls it: POST /operator/graphql on this origin, signed in
 * by the console's HttpOnly session cookie alone (rest-compat hands it to the router). No script
 * here holds a key or can read the session.
 */
interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

interface ErrorAnswer {
  error?: { code?: string; message?: string };
}

const unreachable = () =>
  new ApiError('NETWORK_ERROR', 'The gateway could not be reached. Check the connection and try again.');

export async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  let response: Response;
  try {
    response = await sendCall('/operator/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({ query, variables }),
      cache: 'no-store',
    });
  } catch {
    throw unreachable();
  }
  const answer = (await response.json().catch(() => ({}))) as GraphQLAnswer<T>;
  const error = answer.errors?.[0];
  if (error) throw new ApiError(error.extensions?.code ?? 'INTERNAL_ERROR', error.message);
  if (!answer.data)
    throw new ApiError('SERVICE_UNAVAILABLE', `The gateway answered HTTP ${response.status} without data.`);
  return answer.data;
}

const SESSION_PATH = '/operator/session';

/** Sends the admin key once; the answer sets the session cookie. The key is not kept anywhere. */
export async function startSession(adminKey: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(SESSION_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({ admin_key: adminKey }),
      cache: 'no-store',
    });
  } catch {
    throw unreachable();
  }
  if (response.ok) return;
  const answer = (await response.json().catch(() => ({}))) as ErrorAnswer;
  throw new ApiError(
    answer.error?.code ?? 'INTERNAL_ERROR',
    answer.error?.message ?? `The gateway answered HTTP ${response.status}.`,
  );
}

/** Ends the session at the gateway (the cookie no longer works anywhere) and clears it, once the console's calls are answered. */
export async function endSession(): Promise<void> {
  await callsAnswered();
  await fetch(SESSION_PATH, { method: 'DELETE', credentials: 'same-origin', cache: 'no-store' }).catch(() => undefined);
}
