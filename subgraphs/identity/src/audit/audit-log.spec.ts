import { audit, AuditEntry, type AuditActor } from '@gateway/audit';
import { openServiceOrm, type Database, type ServiceOrm } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import { createLogger, type Principal } from '@gateway/kernel';
import { start } from '../service';

const LOG = `query($actor: String, $action: String, $target: String, $from: DateTimeISO, $to: DateTimeISO, $first: Int, $after: ID) {
  auditLog(actor: $actor, action: $action, target: $target, from: $from, to: $to, first: $first, after: $after) {
    edges { cursor node { auditId at actor { kind id name } action target changes ip requestId } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const admin: Principal = { kind: 'admin', name: 'ADMIN_KEY' };
const operator: AuditActor = { kind: 'admin', id: 'adk_alice', name: 'alice', ip: '203.0.113.9', requestId: 'req_a1' };
const bankActor: AuditActor = { kind: 'bank', id: 'oasis', ip: '198.51.100.4', requestId: 'req_b1' };
const base = Date.parse('2031-03-01T00:00:00Z');
const logger = createLogger('audit-log-spec', 'silent');

describe('identity subgraph: the audit log read by operators', () => {
  let db: Database;
  let service: RunningService;
  let orm: ServiceOrm;
  let client: ReturnType<typeof subgraphClient>;
  const log = async (variables: Record<string, unknown>, principal: Principal = admin) =>
    (await client.execute(LOG, variables, principal)).auditLog;
  const refusal = async (variables: Record<string, unknown>, principal: Principal = admin) => {
    const result = await client.attempt(LOG, variables, principal);
    return [result.errors?.[0]?.extensions?.code, result.errors?.[0]?.extensions?.detail];
  };

  beforeAll(async () => {
    db = await openTestDatabase();
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
    orm = await openServiceOrm(db, {
      schema: 'audit_log_spec',
      entities: [AuditEntry],
      migrations: [],
      foreignSchemas: ['audit'],
    });
    await orm.em.fork().transactional(async (tx) => {
      audit.record(
        tx,
        {
          actor: operator,
          action: 'merchant.updated',
          target: 'mer_1',
          changes: { settlement_iban: { from: 'LY1', to: 'LY2' } },
        },
        logger,
        new Date(base),
      );
      audit.record(
        tx,
        {
          actor: bankActor,
          action: 'bank.updated',
          target: 'oasis',
          changes: { ob_enabled: { from: false, to: true } },
        },
        logger,
        new Date(base + 1000),
      );
      audit.record(
        tx,
        {
          actor: operator,
          action: 'merchant.key_rotated',
          target: 'mer_1',
          changes: { api_key: { from: '[secret]', to: '[secret]' } },
        },
        logger,
        new Date(base + 2000),
      );
    });
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  it('answers an operator the entries newest first, as recorded', async () => {
    const page = await log({ first: 10 });
    expect(page.edges.map((edge: any) => edge.node.action)).toEqual([
      'merchant.key_rotated',
      'bank.updated',
      'merchant.updated',
    ]);
    expect(page.edges[2].node).toEqual({
      auditId: expect.stringMatching(/^aud_/),
      at: new Date(base).toISOString(),
      actor: { kind: 'admin', id: 'adk_alice', name: 'alice' },
      action: 'merchant.updated',
      target: 'mer_1',
      changes: { settlement_iban: { from: 'LY1', to: 'LY2' } },
      ip: '203.0.113.9',
      requestId: 'req_a1',
    });
    expect(page.pageInfo).toEqual({ hasNextPage: false, endCursor: page.edges[2].cursor });
  });

  it('filters by actor (id or admin key name), action, target and time, and pages by cursor', async () => {
    const actions = async (variables: Record<string, unknown>) =>
      (await log({ first: 10, ...variables })).edges.map((edge: any) => edge.node.action);
    expect(await actions({ actor: 'alice' })).toEqual(['merchant.key_rotated', 'merchant.updated']);
    expect(await actions({ actor: 'adk_alice' })).toEqual(['merchant.key_rotated', 'merchant.updated']);
    expect(await actions({ actor: 'oasis' })).toEqual(['bank.updated']);
    expect(await actions({ action: 'merchant.updated' })).toEqual(['merchant.updated']);
    expect(await actions({ target: 'oasis' })).toEqual(['bank.updated']);
    expect(
      await actions({ from: new Date(base + 1000).toISOString(), to: new Date(base + 2000).toISOString() }),
    ).toEqual(['bank.updated']);

    const first = await log({ first: 2 });
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await log({ first: 2, after: first.pageInfo.endCursor });
    expect(second.edges.map((edge: any) => edge.node.action)).toEqual(['merchant.updated']);
    expect(second.pageInfo.hasNextPage).toBe(false);
  });

  it('refuses bad filters with VALIDATION_ERROR naming them', async () => {
    expect(await refusal({ action: 'merchant.deleted' })).toEqual([
      'VALIDATION_ERROR',
      expect.stringMatching(/^action: must be one of admin_key\.created, /),
    ]);
    expect(await refusal({ first: 0 })).toEqual(['VALIDATION_ERROR', 'first: 1 to 100']);
    expect(await refusal({ first: 101 })).toEqual(['VALIDATION_ERROR', 'first: 1 to 100']);
    expect(await refusal({ actor: '' })).toEqual(['VALIDATION_ERROR', expect.stringMatching(/^actor: /)]);
    expect(await refusal({ after: 'not-a-cursor' })).toEqual(['VALIDATION_ERROR', 'cursor is not valid']);
    expect(await refusal({ from: new Date(base + 1).toISOString(), to: new Date(base).toISOString() })).toEqual([
      'VALIDATION_ERROR',
      'from: must not be after to',
    ]);
  });

  it('is for operators only: anonymous UNAUTHORIZED, any other credential FORBIDDEN', async () => {
    expect((await refusal({}, { kind: 'anonymous' }))[0]).toBe('UNAUTHORIZED');
    for (const principal of [
      { kind: 'bank', id: 'oasis' },
      { kind: 'merchant', id: 'mer_1', scopes: ['live'] },
      { kind: 'tpp', id: 'tpp_1' },
      { kind: 'service', id: 'payments' },
    ] as Principal[])
      expect((await refusal({}, principal))[0]).toBe('FORBIDDEN');
  });
});
