import type { ExecutionResult } from 'graphql';
import { topicMatches, type EventBus, type PlatformEvent, type Subscription } from '@gateway/events';
import type { Logger, Principal } from '@gateway/kernel';
import { subscribedPatterns } from './subscription-fields';
import { trackResult, type SubscriptionPlan, type TrackedResult } from './subscription-plan';

/** Runs a plan's query through the gateway as `principal`. */
export type ExecuteAs = (principal: Principal, plan: SubscriptionPlan) => Promise<ExecutionResult>;

/** Where a subscriber's messages go (its graphql-ws stream). */
export interface SubscriberSink {
  /** A message and the status it reports; the sink keeps statuses in order and ends on a final one. */
  push(tracked: TrackedResult): void;
}

/**
 * Subscribers with the same principal, document and variables on the same aggregate: the query
 * runs once per event for all of them (a dashboard open in many tabs, a load test), and its
 * answer is what each of them would have got on its own.
 */
interface Group {
  plan: SubscriptionPlan;
  principal: Principal;
  sinks: Set<SubscriberSink>;
  /** Events of one aggregate are answered one after the other, in bus order. */
  chain: Promise<void>;
  /**
   * The aggregate's sequence of the last event answered: the relay numbers each aggregate's
   * events in commit order, so an event at or below it is a redelivery or one the bus overtook,
   * older than what the subscribers already have, and is not answered.
   */
  lastSequence: number;
  /** Ids of the last events without a sequence answered: a redelivered one is not sent twice. */
  recent: string[];
  /** A view's read is waiting in the chain: the events meanwhile need no read of their own. */
  readQueued?: boolean;
  /** A view's last answer sent (JSON): an equal one is not sent again. */
  lastAnswer?: string;
}

const RECENT_EVENTS = 32;

/** Marks the event as answered for the group; false when it (or a later one) already was. */
function isNewer(group: Group, event: PlatformEvent): boolean {
  if (event.sequence !== undefined) {
    if (event.sequence <= group.lastSequence) return false;
    group.lastSequence = event.sequence;
    return true;
  }
  if (group.recent.includes(event.id)) return false;
  group.recent.push(event.id);
  if (group.recent.length > RECENT_EVENTS) group.recent.shift();
  return true;
}

const principalKey = (p: Principal) => JSON.stringify([p.kind, p.id ?? null, p.scopes ?? null, p.consentId ?? null]);

/**
 * The router's side of subscriptions: one bus subscription per router instance (fan-out queue on
 * RabbitMQ, so every instance sees every event), and in memory the subscribers by aggregate id.
 * An event for an aggregate nobody here follows costs a map lookup.
 */
export class SubscriptionHub {
  private readonly byAggregate = new Map<string, Map<string, Group>>();
  /** Groups of view fields (declaration.view), read again on any of their field's events. */
  private readonly views = new Set<Group>();
  private readonly recentViewEvents: string[] = [];
  private subscriptions: Subscription[] = [];
  private active = 0;

  constructor(
    private readonly bus: EventBus,
    private readonly execute: ExecuteAs,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    // Every declared field's events (SUBSCRIPTION_FIELDS); a pattern matching no one's events costs nothing.
    for (const pattern of subscribedPatterns()) {
      this.subscriptions.push(
        await this.bus.subscribe(pattern, (event) => this.onEvent(event), { onResumed: () => this.catchUp() }),
      );
    }
  }

  async stop(): Promise<void> {
    for (const subscription of this.subscriptions.splice(0)) await subscription.close();
    this.byAggregate.clear();
    this.views.clear();
  }

  /** Subscribers connected to this instance. */
  get size(): number {
    return this.active;
  }

  /** Follows the plan's aggregate for `sink`; returns the function that stops it. */
  add(plan: SubscriptionPlan, principal: Principal, sink: SubscriberSink): () => void {
    const key = `${principalKey(principal)}\n${plan.query}\n${JSON.stringify(plan.variables)}`;
    let groups = this.byAggregate.get(plan.aggregateId);
    if (!groups) this.byAggregate.set(plan.aggregateId, (groups = new Map()));
    let group = groups.get(key);
    if (!group)
      groups.set(
        key,
        (group = { plan, principal, sinks: new Set(), chain: Promise.resolve(), lastSequence: 0, recent: [] }),
      );
    group.sinks.add(sink);
    if (plan.declaration.view) this.views.add(group);
    this.active += 1;
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      this.active -= 1;
      group.sinks.delete(sink);
      if (group.sinks.size) return;
      groups.delete(key);
      this.views.delete(group);
      if (!groups.size) this.byAggregate.delete(plan.aggregateId);
    };
  }

  private async onEvent(event: PlatformEvent): Promise<void> {
    // An event matching two of the hub's patterns arrives twice (payment.# and payment.*): one read.
    if (this.views.size && !this.recentViewEvents.includes(event.id)) {
      this.recentViewEvents.push(event.id);
      if (this.recentViewEvents.length > RECENT_EVENTS) this.recentViewEvents.shift();
      for (const group of this.views)
        if (group.plan.declaration.eventPatterns.some((pattern) => topicMatches(pattern, event.kind)))
          this.readView(group);
    }
    const groups = this.byAggregate.get(event.aggregateId);
    if (!groups) return;
    for (const group of groups.values()) {
      if (group.plan.declaration.view || group.plan.aggregateType !== event.aggregateType) continue;
      group.chain = group.chain.then(() => this.answer(group, event));
    }
  }

  /**
   * A view is read again after the events that may have moved it; events arriving while a read
   * waits share it (a burst of movements costs one read per subscriber group, not one each).
   */
  private readView(group: Group): void {
    if (group.readQueued) return;
    group.readQueued = true;
    group.chain = group.chain.then(async () => {
      group.readQueued = false;
      if (!group.sinks.size) return;
      const tracked = await this.read(group, 'subscription view query failed');
      if (!tracked) return;
      const answer = JSON.stringify(tracked.result);
      if (answer === group.lastAnswer) return;
      group.lastAnswer = answer;
      for (const sink of [...group.sinks]) sink.push(tracked);
    });
  }

  /**
   * This instance's bus subscription was down (a broker restart, a cut connection): the events
   * published meanwhile never reach it, so every followed aggregate's current state is read again
   * and sent. The subscriber's stream sends it only if it is later than what it already has.
   */
  private catchUp(): void {
    for (const groups of this.byAggregate.values()) {
      for (const group of groups.values()) {
        if (group.plan.declaration.view) this.readView(group);
        else group.chain = group.chain.then(() => this.refresh(group));
      }
    }
  }

  private async refresh(group: Group): Promise<void> {
    if (!group.sinks.size) return;
    const tracked = await this.read(group, 'subscription catch-up query failed');
    // A state without a status (the query failed) tells the subscriber nothing new.
    if (tracked?.status === undefined) return;
    for (const sink of [...group.sinks]) sink.push(tracked);
  }

  /** The group's query run for its subscribers, as they follow it; undefined (logged) when it could not run. */
  private async read(group: Group, failure: string): Promise<TrackedResult | undefined> {
    try {
      return trackResult(await this.execute(group.principal, group.plan), group.plan);
    } catch (error) {
      this.logger.error({ err: error, field: group.plan.field, aggregate: group.plan.aggregateId }, failure);
      return undefined;
    }
  }

  private async answer(group: Group, event: PlatformEvent): Promise<void> {
    if (!group.sinks.size || !isNewer(group, event)) return;
    let tracked: TrackedResult;
    try {
      tracked = trackResult(
        await this.execute(group.principal, group.plan),
        group.plan,
        group.plan.declaration.eventStatus(event),
      );
    } catch (error) {
      this.logger.error({ err: error, event: event.id }, 'subscription query failed');
      return;
    }
    for (const sink of [...group.sinks]) sink.push(tracked);
  }
}
