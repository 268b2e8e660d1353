import type { Knex } from '@mikro-orm/knex';
import type { PlatformEvent } from '@gateway/events';
import { newId } from '@gateway/kernel';
import { openEndpointTarget, openMerchantTarget, type DeliveryTarget, type TargetLookup } from './delivery-target';
import type { DeliveryWorker } from './delivery-worker';
import { deliveries, type IntakeResult, type NewEvent } from './delivery.repository';
import { MAX_ENDPOINTS, primaryEndpointId } from './event-kinds';
import { serializeEnvelope } from './signature';
import { audienceOf } from './webhook-audience';

/** The most events of one aggregate one group logs (they come a few at a time: a session's moves). */
const MAX_EVENTS_A_GROUP = 16;
/** The most groups (aggregates) one intake statement logs: a statement's size stays that of a few payments. */
const MAX_GROUPS_A_STATEMENT = 32;

/** Consecutive events of one aggregate, for one audience, ready for their intake. */
interface Group {
  events: readonly PlatformEvent[];
  audienceId: string;
  /** A TPP's primary target, asked of open-banking before the intake. */
  primary: DeliveryTarget | null;
  /** This worker's attempts of the aggregate's deliveries (heldFor), read as the group joins its statement. */
  held: string[];
}

/** Groups that go in one statement: a merchant's statement reads targets; the others' (TPP, operator, bank) are one. */
type StatementKind = 'merchant' | 'other';

/** An event's log row and its deliveries' ids, as the intake writes them at `now`. */
export function newEvent(event: PlatformEvent, audienceId: string, now: Date): NewEvent {
  const sequence = event.sequence ?? null;
  // Every event of a world says which (its object's livemode); none was ever written without it since test mode.
  const livemode = event.data.livemode !== false;
  return {
    eventId: event.id,
    eventKind: event.kind,
    audienceId,
    aggregateId: event.aggregateId,
    livemode,
    sequence,
    payload: serializeEnvelope({
      id: event.id,
      event: event.kind,
      created_at: event.createdAt,
      livemode,
      ...(sequence !== null ? { sequence } : {}),
      data: event.data,
    }),
    now,
    deliveryIds: Array.from({ length: MAX_ENDPOINTS + 1 }, () => newId('delivery')),
  };
}

/**
 * The dispatcher's intake: events from the bus logged with their deliveries, and those next in
 * order taken and launched in this process's worker.
 *
 * A session's events reach this process one after another (the relay publishes them together when
 * they were written together: processing and completed), and a bus hands them over at once. Taken
 * in turn, the later one sees the earlier one logged and its attempt running here, and is taken
 * behind it rather than left for a claim once it is recorded (three statements more). Events that
 * come while an intake of their aggregate is under way, or in the same turn of the event loop as
 * the first, wait for their turn together and form one group when they are consecutive (issue 53:
 * a same-bank payment's processing and completed, one intake, not two).
 *
 * And the groups of different aggregates whose turn comes in the same turn of the event loop go
 * in one statement (issue 53: under load, many sessions' events arrive together; one statement
 * and one commit for all of them, not one each). A group's turn still waits for the intake of its
 * aggregate's group before it, so two groups of one aggregate are never in one statement.
 */
export class WebhookIntake {
  private readonly intakesUnderWay = new Map<string, Promise<unknown>>();
  private readonly forming = new Map<string, { events: PlatformEvent[]; done: Promise<void> }>();
  private readonly statements = new Map<StatementKind, { groups: Group[]; done: Promise<unknown[]> }>();
  /** The last log time handed to an event (ms): later events are logged after it, whatever the clock says. */
  private lastLogged = 0;

  constructor(
    private readonly knex: Knex,
    private readonly worker: DeliveryWorker,
    private readonly lookupTarget: TargetLookup,
    private readonly platformSecret: string,
  ) {}

  /** Takes an event from the bus: resolves once it is logged (and its deliveries taken), rejects for the bus to hand it over again. */
  readonly take = (event: PlatformEvent): Promise<void> => {
    const key = event.aggregateId;
    const open = this.forming.get(key);
    if (open && open.events.length < MAX_EVENTS_A_GROUP && follows(open.events, event)) {
      open.events.push(event);
      return open.done;
    }
    const before = this.intakesUnderWay.get(key) ?? nextTurn();
    const batch = { events: [event], done: Promise.resolve() };
    batch.done = before.then(() => {
      // Its turn: nothing joins it any more.
      if (this.forming.get(key) === batch) this.forming.delete(key);
      return this.intake(batch.events);
    });
    this.forming.set(key, batch);
    const done = batch.done.catch(() => undefined);
    this.intakesUnderWay.set(key, done);
    void done.then(() => {
      if (this.intakesUnderWay.get(key) === done) this.intakesUnderWay.delete(key);
    });
    return batch.done;
  };

  /** One aggregate's consecutive events: their audience's target where it is asked first, then their statement. */
  private async intake(events: readonly PlatformEvent[]): Promise<void> {
    const first = events[0]!;
    const audienceId = first.audience;
    if (!audienceId) return; // an event for nobody in particular: no webhook
    let primary: DeliveryTarget | null = null;
    if (audienceOf(audienceId) === 'tpp') {
      // A TPP's primary target is asked of open-banking; if the router cannot answer, this throws and
      // the bus hands the events over again later (at least once).
      primary = await this.lookupTarget({
        audience_id: audienceId,
        endpoint_id: primaryEndpointId(audienceId),
        aggregate_id: first.aggregateId,
      });
      if (!primary) return; // an unknown TPP: nothing to log or deliver
    }
    const kind: StatementKind = audienceOf(audienceId) === 'merchant' ? 'merchant' : 'other';
    // Taken behind this worker's attempts of the same session still under way (sent in order after them).
    return this.join(kind, { events, audienceId, primary, held: this.worker.heldFor(first.aggregateId) });
  }

  /**
   * Adds a group to the statement of its kind that goes at the next turn (a new one when there is
   * none or it is full). Resolves once the group is logged and launched; rejects when the statement
   * failed (every group's events are handed over again) or when this group's launch did.
   */
  private join(kind: StatementKind, group: Group): Promise<void> {
    let statement = this.statements.get(kind);
    if (!statement || statement.groups.length >= MAX_GROUPS_A_STATEMENT) {
      const formed = { groups: [] as Group[], done: Promise.resolve<unknown[]>([]) };
      formed.done = nextTurn().then(() => {
        if (this.statements.get(kind) === formed) this.statements.delete(kind);
        return this.send(kind, formed.groups);
      });
      this.statements.set(kind, formed);
      statement = formed;
    }
    const index = statement.groups.push(group) - 1;
    return statement.done.then((failures) => {
      if (failures[index] !== undefined) throw failures[index];
    });
  }

  /**
   * One statement: every group logged, their deliveries inserted and, with room for them, taken
   * and launched here. Answers each group's launch failure (undefined: launched): one group's
   * target that cannot be opened does not keep the others' taken deliveries from being sent.
   */
  private async send(kind: StatementKind, groups: readonly Group[]): Promise<unknown[]> {
    const { worker } = this;
    // With room for them, this worker takes a group's deliveries in the same statement and sends them
    // at once, those next in their endpoint's order; the groups before count against its caps. The
    // lease runs from the statement.
    const granted = new Map<string, number>();
    let total = 0;
    const takes = groups.map((group) => {
      const audience = granted.get(group.audienceId) ?? 0;
      if (!worker.hasRoomFor(group.audienceId, { total, audience })) return false;
      granted.set(group.audienceId, audience + 1);
      total += 1;
      return true;
    });
    const lease = takes.some(Boolean) ? worker.newLease() : null;
    // The worker's delivered attempts not recorded yet ride on this statement (put back if it fails).
    const riding = worker.records.take();
    let intakes: Array<IntakeResult | undefined>;
    try {
      const primaryUrlSet = (group: Group) => (group.primary ? group.primary.url !== null : undefined);
      // A group's later events are logged a millisecond after the one before, and after every event
      // logged before them: lists newest first (created_at, then a random id) keep them in their
      // order, as when each had an intake of its own.
      const loggedAt = Math.max(Date.now(), this.lastLogged + 1);
      this.lastLogged = loggedAt + Math.max(...groups.map((group) => group.events.length)) - 1;
      const written = await deliveries.intakeGroups(
        this.knex,
        kind === 'merchant' ? 'merchant' : audienceOf(groups[0]!.audienceId),
        groups.map((group, index) => ({
          events: group.events.map((event, index) => ({
            ...newEvent(event, group.audienceId, new Date(loggedAt + index)),
            ...(primaryUrlSet(group) !== undefined ? { primaryUrlSet: primaryUrlSet(group) } : {}),
          })),
          take: takes[index]!,
        })),
        lease,
        riding,
        groups.flatMap((group) => group.held),
      );
      worker.records.rode(riding, written.recorded);
      intakes = written.intakes;
    } catch (error) {
      worker.records.putBack(riding);
      throw error;
    }
    return groups.map((group, index) => {
      try {
        this.launch(group, intakes[index], lease);
        return undefined;
      } catch (error) {
        return error ?? new Error('webhook intake: a launch failed');
      }
    });
  }

  /** A group's new deliveries launched in the events' order: an endpoint's later delivery waits in its lane behind the earlier one. */
  private launch(group: Group, result: IntakeResult | undefined, lease: Date | null): void {
    const { worker } = this;
    // Nothing inserted: an unknown audience, no endpoint, or a second copy of an event (not sent again).
    const primary = result?.target ? openMerchantTarget(result.target, this.platformSecret) : group.primary;
    let waiting = false;
    for (const delivery of result?.deliveries ?? []) {
      // Its owner is suspended: it waits HELD for the claim that releases it, nothing to wake for.
      if (delivery.held) continue;
      const target =
        delivery.endpoint_url !== null && delivery.endpoint_sealed !== null
          ? openEndpointTarget(delivery.endpoint_url, delivery.endpoint_sealed, this.platformSecret)
          : primary;
      const { endpoint_url: _u, endpoint_sealed: _s, held: _h, lease_token, ...claimed } = delivery;
      if (lease_token && target && lease)
        worker.launch({ ...claimed, lease_token }, target, { held: group.held, leaseUntil: lease });
      else {
        waiting = true;
        // Most likely behind this worker's attempt at the event before: its record goes at once, not after a wait.
        worker.waitingBehind(delivery.aggregate_id);
      }
    }
    if (waiting) worker.wake();
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `event` is the next of the same aggregate and audience after `events`. */
function follows(events: readonly PlatformEvent[], event: PlatformEvent): boolean {
  const last = events[events.length - 1]!;
  return (
    last.audience === event.audience &&
    last.sequence !== undefined &&
    event.sequence === last.sequence + 1 &&
    event.aggregateType === last.aggregateType
  );
}
