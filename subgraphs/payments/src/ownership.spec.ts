import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * CONVENTIONS "Data": one owner per table. Every table the payments subgraph writes, with the one
 * file allowed to write it (docs/data-ownership.md says the same for people). `owner: null`:
 * written only by a shared package (the outbox by @gateway/events' recordEvent, credentials by
 * @gateway/vault), never directly from here.
 */
const TABLES: Record<string, { entity: string; owner: string | null }> = {
  merchants: { entity: 'MerchantEntity', owner: 'merchant/merchant.service.ts' },
  payment_sessions: { entity: 'PaymentSessionEntity', owner: 'session/session.moves.ts' },
  payment_executions: { entity: 'PaymentExecutionEntity', owner: 'engine/execution.repository.ts' },
  order_movements: { entity: 'OrderMovementEntity', owner: 'order-movement/order-movement.moves.ts' },
  vrp_movements: { entity: 'VrpMovementEntity', owner: 'vrp-movement/vrp-movement.moves.ts' },
  mandates: { entity: 'MandateEntity', owner: 'mandate/mandate.moves.ts' },
  mandate_charges: { entity: 'MandateChargeEntity', owner: 'mandate/mandate.moves.ts' },
  refunds: { entity: 'RefundEntity', owner: 'refund/refund.moves.ts' },
  interbank_obligations: { entity: 'InterbankObligationEntity', owner: 'obligation/obligation.service.ts' },
  settlement_cycles: { entity: 'SettlementCycleEntity', owner: 'settlement/settlement.repository.ts' },
  settlement_positions: { entity: 'SettlementPositionEntity', owner: 'settlement/settlement.repository.ts' },
  credit_confirmations: { entity: 'CreditConfirmationEntity', owner: 'confirmation/confirmation.service.ts' },
  idempotency_keys: { entity: 'IdempotencyKeyEntity', owner: 'idempotency/idempotency.service.ts' },
  webhook_deliveries: { entity: 'WebhookDeliveryEntity', owner: 'webhook/delivery.repository.ts' },
  webhook_attempts: { entity: 'WebhookAttemptEntity', owner: 'webhook/delivery.repository.ts' },
  webhook_events: { entity: 'WebhookEventEntity', owner: 'webhook/delivery.repository.ts' },
  webhook_endpoints: { entity: 'WebhookEndpointEntity', owner: 'webhook-endpoint/webhook-endpoint.service.ts' },
  // Raw SQL only (a token bucket per owner, one conditional upsert): no entity maps it.
  webhook_replay_budgets: { entity: '(none)', owner: 'webhook-endpoint/webhook-replay.ts' },
  // Raw SQL only (arithmetic upserts on one hot row, parts of the engine's statement): no entity maps them.
  net_debit_positions: { entity: '(none)', owner: 'net-debit/net-debit.positions.ts' },
  position_reservations: { entity: '(none)', owner: 'net-debit/net-debit.positions.ts' },
  outbox: { entity: 'OutboxEvent', owner: null },
  credentials: { entity: 'Credential', owner: null },
};

const TABLE_OF_ENTITY = new Map(Object.entries(TABLES).map(([table, { entity }]) => [entity, table]));
/** A table name as raw SQL writes it: schema-qualified, quoted or not. */
const QUALIFIED = String.raw`"?(?:payments|auth)"?\."?(\w+)"?`;

export interface Write {
  table: string;
  line: number;
  how: string;
}

/**
 * The writes a source file makes, found by reading it (no type information: simple and honest).
 * Seen: MikroORM calls that name an entity (nativeUpdate/nativeInsert/nativeDelete, create,
 * insert, upsert), OneStatement parts (insert/update, after the part's name), raw SQL that names its table schema-qualified or through a constant of the
 * file (insert into / update / delete from), knex builders (knex(table).insert/update/del), and
 * persist/remove (table unknown: '?'). Not seen: changes to a managed entity flushed by a
 * transaction (merchant.service, idempotency.service, the delivery retry do that, all in their
 * owner's file), and anything hidden behind a variable holding an entity class.
 */
export function writesIn(source: string): Write[] {
  const constants = new Map(
    [...source.matchAll(/const (\w+) = '(?:payments|auth)\.(\w+)'/g)].map((m) => [m[1]!, m[2]!]),
  );
  const tableNamed = (literal: string | undefined, constant: string | undefined) =>
    literal ?? (constant ? constants.get(constant) : undefined);
  const found: Write[] = [];
  const add = (table: string | undefined, index: number, how: string) => {
    if (table) found.push({ table, line: source.slice(0, index).split('\n').length, how });
  };
  // A OneStatement part names itself first: statement.insert('execution', PaymentExecutionEntity, …).
  for (const m of source.matchAll(
    /\b(nativeUpdate|nativeInsert|nativeDelete|create|insert|insertMany|upsert|upsertMany|update)\(\s*(?:'\w+'\s*,\s*)?(\w+)\s*,/g,
  )) {
    add(TABLE_OF_ENTITY.get(m[2]!), m.index!, `${m[1]}(${m[2]})`);
  }
  const sql = new RegExp(String.raw`\b(insert\s+into|update|delete\s+from)\s+(?:${QUALIFIED}|\$\{(\w+)\})`, 'gi');
  for (const m of source.matchAll(sql))
    add(tableNamed(m[2], m[3]), m.index!, `${m[1]!.toLowerCase().replace(/\s+/g, ' ')} (raw SQL)`);
  for (const m of source.matchAll(/\bknex\(\s*(?:'(?:payments|auth)\.(\w+)'|(\w+))\s*\)([^;]*)/g)) {
    const verb = /\.(insert|update|del|delete|upsert)\(/.exec(m[3]!);
    if (verb) add(tableNamed(m[1], m[2]), m.index!, `knex().${verb[1]}`);
  }
  for (const m of source.matchAll(/\.(persist|persistAndFlush|remove|removeAndFlush)\(/g)) add('?', m.index!, m[1]!);
  return found;
}

/** Every source file of the payments subgraph: specs and migrations (the schema's history) aside. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('one owner per table (CONVENTIONS "Data")', () => {
  const files = sourceFiles(__dirname).map((path) => ({
    file: relative(__dirname, path),
    writes: writesIn(readFileSync(path, 'utf8')),
  }));
  const owners = new Set(Object.values(TABLES).map(({ owner }) => owner));

  it('writes each table only from its owner file', () => {
    const strays = files.flatMap(({ file, writes }) =>
      writes
        .filter(({ table }) => (table === '?' ? !owners.has(file) : TABLES[table]?.owner !== file))
        .map(
          ({ table, line, how }) =>
            `${file}:${line} ${how} writes ${table}, owned by ${TABLES[table]?.owner ?? 'a shared package'}`,
        ),
    );
    expect(strays).toEqual([]);
  });

  it('names owners that exist and write their table (the list is not stale)', () => {
    for (const [table, { owner }] of Object.entries(TABLES)) {
      if (!owner) continue;
      expect({
        table,
        writes: files.find(({ file }) => file === owner)?.writes.some((write) => write.table === table),
      }).toEqual({ table, writes: true });
    }
  });

  it('sees the kinds of write this code uses, and not reads', () => {
    const seen = (source: string) => writesIn(source).map(({ table, how }) => `${table} ${how}`);
    expect(seen(`await tx.nativeUpdate(PaymentExecutionEntity, { sessionId }, changes);`)).toEqual([
      'payment_executions nativeUpdate(PaymentExecutionEntity)',
    ]);
    expect(seen(`tx.create(CreditConfirmationEntity, { outcome: 'accepted' });`)).toEqual([
      'credit_confirmations create(CreditConfirmationEntity)',
    ]);
    expect(seen('await tx.execute(`update "payments"."payment_sessions" set "otp_failures" = 1`);')).toEqual([
      'payment_sessions update (raw SQL)',
    ]);
    expect(seen('await em.execute(`insert into "payments"."interbank_obligations" ("id") values (?)`);')).toEqual([
      'interbank_obligations insert into (raw SQL)',
    ]);
    expect(
      seen("const D = 'payments.webhook_deliveries';\nawait knex.raw(`update ${D} set lease_until = ?`);"),
    ).toEqual(['webhook_deliveries update (raw SQL)']);
    expect(seen("await knex('payments.webhook_deliveries')\n  .insert({ id })\n  .onConflict(['id']);")).toEqual([
      'webhook_deliveries knex().insert',
    ]);
    expect(seen('em.persist(entity);')).toEqual(['? persist']);
    expect(seen("statement.insert('execution', PaymentExecutionEntity, { ...row }, when);")).toEqual([
      'payment_executions insert(PaymentExecutionEntity)',
    ]);
    expect(seen("statement.update('step', PaymentExecutionEntity, { sessionId }, changes);")).toEqual([
      'payment_executions update(PaymentExecutionEntity)',
    ]);
    expect(seen("statement.lock('movement', PaymentSessionEntity, { id });")).toEqual([]);
    expect(
      seen(
        "await em.find(PaymentSessionEntity, { id }); await knex.raw(`select * from payments.merchants`); await knex('payments.merchants').where({ id });",
      ),
    ).toEqual([]);
  });
});
