import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { OneStatement } from '@gateway/db';
import type { Currency } from '@gateway/kernel';
import { chargeMovements } from '../mandate/mandate.moves';
import { MandateChargeEntity } from '../mandate/mandate.entity';
import { orderMovements } from '../order-movement/order-movement.moves';
import { OrderMovementEntity } from '../order-movement/order-movement.entity';
import { refundMovements } from '../refund/refund.moves';
import { RefundEntity } from '../refund/refund.entity';
import { SESSION_TRANSITIONS } from '../session/session.transitions';
import { vrpMovements } from '../vrp-movement/vrp-movement.moves';
import { VrpMovementEntity } from '../vrp-movement/vrp-movement.entity';
import { kindOfId } from './movement';
import type { DeclaredMovementKind, KindMovement } from './movement.kind';
import {
  engineMovementTransitions,
  FINAL_MOVEMENT_STATUSES,
  MOVEMENT_REACHED_AT,
  MOVEMENT_STATUSES,
} from './movement.transitions';

/** The declared kinds, each with a movement of its own as the engine reads it (PROCESSING, cross bank). */
const KINDS: Array<[DeclaredMovementKind<KindMovement, string, string>, () => KindMovement]> = [
  [refundMovements, () => movement(new RefundEntity(), 'rfd_1', { sessionId: 'ops_1', merchantId: 'mer_1' })],
  [
    chargeMovements,
    () => movement(new MandateChargeEntity(), 'chg_1', { mandateId: 'mdt_1', merchantId: 'mer_1', reference: 'r' }),
  ],
  [orderMovements, () => movement(new OrderMovementEntity(), 'po_1', { tppId: 'tpp_1' })],
  [vrpMovements, () => movement(new VrpMovementEntity(), 'vrp_1', { tppId: 'tpp_1' })],
] as never;

function movement<M extends KindMovement>(entity: M, id: string, own: Partial<M>): M {
  const at = new Date('2026-11-01T00:00:00Z');
  return Object.assign(entity, {
    id,
    livemode: false,
    status: 'PROCESSING',
    amount: 500n,
    currency: 'LYD' as Currency,
    debtorBank: 'bank_a',
    debtorIban: 'LY00A',
    creditorBank: 'bank_b',
    creditorIban: 'LY00B',
    settlementType: 'rail',
    createdAt: at,
    updatedAt: at,
    ...own,
  });
}

interface Part {
  name: string;
  how: 'update' | 'insert' | 'sql';
  when: string | undefined;
  where?: unknown;
  changes?: Record<string, unknown>;
  data?: unknown;
}

/** What a move adds to its statement, in order: the parts' names, what they write and on what each depends. */
function recording(): { statement: OneStatement; parts: Part[] } {
  const parts: Part[] = [];
  const statement = {
    update: (name: string, _entity: unknown, where: unknown, changes: Record<string, unknown>, when?: string) =>
      parts.push({ name, how: 'update', when, where, changes }),
    insert: (name: string, _entity: unknown, data: unknown, when?: string) =>
      parts.push({ name, how: 'insert', when, data }),
    sql: (name: string, text: string) =>
      parts.push({ name, how: 'sql', when: /exists \(select 1 from (\w+)\)/.exec(text)?.[1] }),
    changed: (when: string) => `exists (select 1 from ${when})`,
  };
  return { statement: statement as unknown as OneStatement, parts };
}

const ENGINE_MOVES = engineMovementTransitions('created', { completed: 'done', failed: 'failed' }).filter(
  (row) => row.from !== null,
);

describe('movement kinds: each a declaration over one shape (movement.kind.ts)', () => {
  it.each(KINDS.map(([kind]) => [kind.noun, kind] as const))(
    'the %s kind declares its states: one creation to PROCESSING, every engine move, a timestamp per status',
    (_noun, kind) => {
      const creations = kind.transitions.filter((row) => row.from === null);
      expect(creations.map((row) => row.to)).toEqual(['PROCESSING']);
      for (const row of kind.transitions) {
        expect(MOVEMENT_STATUSES).toContain(row.to);
        expect(MOVEMENT_REACHED_AT[row.to]).toBeDefined();
      }
      for (const { from, trigger, to, event } of ENGINE_MOVES) {
        const row = kind.transitionFor(from, trigger);
        expect([from, trigger, row?.to, row?.event === null]).toEqual([from, trigger, to, event === null]);
      }
      for (const status of MOVEMENT_STATUSES)
        expect(kind.isFinal({ status } as never)).toBe(FINAL_MOVEMENT_STATUSES.has(status));
    },
  );

  it('the session, the one kind not declared (its table starts before the engine), has every engine move too', () => {
    for (const { from, trigger, to } of ENGINE_MOVES) {
      expect(SESSION_TRANSITIONS.find((row) => row.from === from && row.trigger === trigger)?.to).toBe(to);
    }
  });

  it('gives each kind events of its own, but for the kinds open-banking requests: they answer it alike', () => {
    const eventsOf = (kind: (typeof KINDS)[number][0]) =>
      [...new Set(kind.transitions.map((row) => row.event).filter(Boolean))].sort();
    const requested = new Set<unknown>([orderMovements, vrpMovements]);
    const own = KINDS.filter(([kind]) => !requested.has(kind)).flatMap(([kind]) => eventsOf(kind));
    const all = [...own, ...eventsOf(orderMovements as never)];
    expect(new Set(all).size).toBe(all.length);
    expect(eventsOf(orderMovements as never)).toEqual(['movement.completed', 'movement.failed']);
    expect(eventsOf(vrpMovements as never)).toEqual(eventsOf(orderMovements as never));
  });

  it.each(
    KINDS.filter(([kind]) => kind === (orderMovements as never) || kind === (vrpMovements as never)).map(
      ([kind, make]) => [kind.noun, kind, make] as const,
    ),
  )(
    "the %s answers open-banking with movement.failed: aggregate 'movement', no audience, the outcome and why",
    (_noun, kind, make) => {
      const now = new Date('2026-11-02T00:00:00Z');
      const { statement, parts } = recording();
      kind.moveIn(
        statement,
        make(),
        'core_failure',
        now,
        { failureCode: 'INSUFFICIENT_FUNDS', failureDetail: 'no funds' },
        'step',
      );
      expect(parts.map(({ name }) => name)).toEqual(['moved', 'moved_event']);
      const id = make().id;
      expect(parts.slice(1).map(({ data }) => data)).toMatchObject([
        {
          kind: 'movement.failed',
          aggregateType: 'movement',
          aggregateId: id,
          audience: null,
          data: {
            movement_id: id,
            status: 'FAILED',
            settlement_type: 'rail',
            creditor_bank: 'bank_b',
            failure_code: 'INSUFFICIENT_FUNDS',
            failure_detail: 'no funds',
            refusal: 'funds',
          },
        },
      ]);
    },
  );

  it('finds the kind of a movement by its id alone (the credit-confirmed callback knows only the reference)', () => {
    expect(['ops_1', 'po_1', 'vrp_1', 'chg_1', 'rfd_1'].map(kindOfId)).toEqual([
      'session',
      'payment_order',
      'vrp_payment',
      'mandate_charge',
      'refund',
    ]);
  });

  it.each(KINDS.map(([kind, make]) => [kind.noun, kind, make] as const))(
    'moving a %s: one conditional UPDATE on the status read, its event only if it changed the row',
    (_noun, kind, make) => {
      const now = new Date('2026-11-02T00:00:00Z');
      const moving = make();
      const { statement, parts } = recording();
      const update = kind.moveIn(statement, moving, 'internal_credit_booked', now, undefined, 'step');
      expect(parts.map(({ name, how, when }) => [name, how, when])).toEqual([
        ['moved', 'update', 'step'],
        ['moved_event', 'insert', 'moved'],
      ]);
      expect(parts[0]!.where).toEqual({ id: moving.id, status: 'PROCESSING' });
      expect(update).toEqual({ status: 'COMPLETED', updatedAt: now, completedAt: now });
      expect(moving.status).toBe('PROCESSING'); // the caller applies the update once the statement changed the row

      const quiet = recording();
      kind.moveIn(quiet.statement, make(), 'cross_bank_debit_booked', now, undefined, 'step');
      expect(quiet.parts.map(({ name }) => name)).toEqual(['moved']);

      expect(() => kind.moveIn(recording().statement, make(), 'credit_confirmed', now, undefined, 'step')).toThrow(
        `${kind.noun} ${moving.id} is PROCESSING: credit_confirmed is not a move of its table`,
      );
    },
  );

  it("a refund's FAILED move frees its amount in the same statement, unless the outcome is unknown", () => {
    const now = new Date();
    const failed = (failureCode: string) => {
      const { statement, parts } = recording();
      const [, make] = KINDS[0]!;
      refundMovements.moveIn(
        statement,
        make() as RefundEntity,
        'core_failure',
        now,
        { failureCode, failureDetail: 'x' },
        'step',
      );
      return parts.map(({ name, when }) => [name, when]);
    };
    expect(failed('INSUFFICIENT_FUNDS')).toEqual([
      ['moved', 'step'],
      ['moved_event', 'moved'],
      ['released', 'moved'],
    ]);
    expect(failed('CBS_OUTCOME_UNKNOWN')).toEqual([
      ['moved', 'step'],
      ['moved_event', 'moved'],
    ]);
  });
});

/** Every source file of the subgraph (specs and migrations aside), by its path below src/. */
function sources(dir: string): Array<{ file: string; text: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sources(path);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.spec.ts')) return [];
    return [{ file: relative(join(__dirname, '..'), path), text: readFileSync(path, 'utf8') }];
  });
}

describe('net debit reservations (DESIGN "Risk controls")', () => {
  it("are made only by the engine's entry and used or released only by its endings, never by a kind", () => {
    const calls = sources(join(__dirname, '..'))
      .filter(({ file }) => file !== 'net-debit/net-debit.positions.ts')
      .flatMap(({ file, text }) =>
        [...text.matchAll(/\b(reserveIn|obligateIn|releaseIn)\(/g)].map((m) => `${m[1]} ${file}`),
      );
    expect([...new Set(calls)].sort()).toEqual([
      'obligateIn confirmation/confirmation.service.ts', // the creditor bank's confirmation ends a rail movement
      'obligateIn engine/attention.service.ts', // an operator's finding ends a held one
      'obligateIn engine/steps.ts',
      'releaseIn engine/attention.service.ts',
      'releaseIn engine/steps.ts',
      'reserveIn engine/engine.ts', // startIn, the one entry
    ]);
  });
});
