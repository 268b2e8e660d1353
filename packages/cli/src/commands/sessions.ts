import { formatMoney } from '@gateway/sdk';
import { UsageError, type CliContext } from '../context';
import { print, table } from '../io';

/** `gateway sessions list [--status COMPLETED] [--limit 20]`: the newest sessions first. */
export async function listSessions(context: CliContext, flags: { status?: string; limit?: string }): Promise<number> {
  const limit = flags.limit ? Number(flags.limit) : 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError('--limit: an integer from 1 to 100');
  const query = { limit, ...(flags.status ? { status: flags.status as 'COMPLETED' } : {}) };
  const page = await context.gateway().get('/payments/sessions', { params: { query } });
  print(context.io, context.json, page, () =>
    page.sessions.length === 0
      ? 'No sessions.'
      : table([
          ['ID', 'STATUS', 'AMOUNT', 'REFERENCE', 'CREATED'],
          ...page.sessions.map((session) => [
            session.session_id,
            session.status,
            formatMoney(session.amount, session.currency),
            session.reference ?? '',
            session.created_at,
          ]),
        ]),
  );
  return 0;
}

/** `gateway sessions get ops_…` */
export async function getSession(context: CliContext, sessionId: string | undefined): Promise<number> {
  if (!sessionId) throw new UsageError('sessions get needs a session id (ops_…)');
  const session = await context
    .gateway()
    .get('/payments/sessions/{session_id}', { params: { path: { session_id: sessionId } } });
  print(context.io, context.json, session, () =>
    Object.entries(session)
      .map(
        ([key, value]) =>
          `${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`,
      )
      .join('\n'),
  );
  return 0;
}
