/**
 * The least a gateway does to create a payment session, written by hand (bench/payments.ts,
 * "session floor"): an HTTP server in a process of its own, as the platform runs in its own, that
 * takes POST /sessions with a merchant's API key and answers 201 with the session's id once ONE
 * statement has checked the key against the credential vault (its SHA-256, not revoked, not
 * expired), inserted the session row (payments.payment_sessions' shape, in a scratch table) and its
 * event row. Nothing else: no GraphQL, no validation beyond the JSON, no rate limit, no webhook.
 *
 *   DATABASE_URL, BARE_POOL_SIZE; answers its port to its parent over IPC ({ port }).
 */
import { createServer } from 'node:http';
import { openDatabase } from '@gateway/db';
import { newId, sha256Hex } from '@gateway/kernel';

const CREATE = `with merchant as (
    select owner_id from auth.credentials where hash = ? and kind = 'merchant_key' and revoked_at is null
      and (expires_at is null or expires_at > now())),
  session as (
    insert into "bench_bare_sessions" ("id", "merchant_id", "status", "amount", "currency", "destination_type",
      "destination_value", "creditor_iban", "creditor_bank", "reference", "checkout_url", "expires_at", "created_at",
      "updated_at", "livemode")
    select ?, m.owner_id, 'PENDING', ?, ?, 'alias', ?, 'LY83002048000020100120361', 'bencha', ?, ?,
      now() + interval '15 minutes', now(), now(), true from merchant m
    returning id),
  event as (
    insert into "bench_bare_session_events" (id, aggregate_id, kind, payload)
    select ?, s.id, 'payment.initiated', ? from session s returning 1)
  select s.id, (select count(*) from event) as events from session s`;

async function main(): Promise<void> {
  const db = await openDatabase({ url: process.env.DATABASE_URL!, poolSize: Number(process.env.BARE_POOL_SIZE ?? 10) });
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const answer = (status: number, json: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(json));
      };
      const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      let input: { amount?: number; currency?: string; destination?: { value?: string }; reference?: string };
      try {
        input = JSON.parse(body);
      } catch {
        return answer(400, { error: { code: 'VALIDATION_ERROR' } });
      }
      if (request.method !== 'POST' || !key) return answer(401, { error: { code: 'AUTHENTICATION_REQUIRED' } });
      const id = newId('paymentSession');
      db.knex
        .raw(CREATE, [
          sha256Hex(key),
          id,
          input.amount ?? 0,
          input.currency ?? 'LYD',
          input.destination?.value ?? '',
          input.reference ?? null,
          `http://127.0.0.1/pay/${id}`,
          newId('event'),
          JSON.stringify({ session_id: id, amount: input.amount, currency: input.currency }),
        ])
        .then(({ rows }: { rows: Array<{ id: string }> }) =>
          rows.length === 1
            ? answer(201, { session_id: rows[0]!.id, status: 'PENDING' })
            : answer(401, { error: { code: 'INVALID_API_KEY' } }),
        )
        .catch(() => answer(500, { error: { code: 'INTERNAL_ERROR' } }));
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('disconnect', () => {
    server.close();
    void db.close().then(() => process.exit(0));
  });
}

void main();
