import type { PlatformEvent } from './event';

export type EventHandler = (event: PlatformEvent) => Promise<void>;

export interface Subscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /**
   * Called each time the subscription is set up again after its connection to the broker was
   * lost. A fan-out queue lives only as long as its connection, so events published in between
   * never reach it: the subscriber catches up by reading the current state. Never called by the
   * in-process bus (it loses nothing).
   */
  onResumed?: () => void;
}

/**
 * The event bus: one interface, two adapters (in-process for embedded mode, RabbitMQ when
 * AMQP_URL is set). Delivery is at least once; events carry ids for deduplication.
 */
export interface EventBus {
  /** Resolves once the bus has taken the event (publisher confirm on RabbitMQ). */
  publish(event: PlatformEvent): Promise<void>;
  /**
   * Competing consumers: every event matching `pattern` (topic syntax, e.g. `payment.*`; several
   * patterns bind one queue, so one group can take several kinds of events in one stream) goes
   * to one consumer of the named `group` (a durable queue on RabbitMQ). A handler that throws
   * gets the event again later.
   */
  consume(group: string, pattern: string | readonly string[], handler: EventHandler): Promise<Subscription>;
  /**
   * Fan-out: every subscriber sees every matching event (a router instance's subscriptions) while
   * it is connected; `onResumed` says when events may have been missed (see SubscribeOptions).
   */
  subscribe(pattern: string, handler: EventHandler, options?: SubscribeOptions): Promise<Subscription>;
  close(): Promise<void>;
}

/**
 * Each pattern's expression, built once: the in-process bus matches every consumer's patterns on
 * every publish, and building them each time was 20 µs of a session's creation (issue 53). The
 * patterns are the few the code consumes and subscribes with; the bound only keeps a caller that
 * made patterns up from growing it.
 */
const compiledPatterns = new Map<string, RegExp>();
const MAX_COMPILED_PATTERNS = 1_000;

/** Topic matching as RabbitMQ does it: `*` one word, `#` zero or more words. */
export function topicMatches(pattern: string, kind: string): boolean {
  let regex = compiledPatterns.get(pattern);
  if (!regex) {
    regex = new RegExp(
      `^${pattern
        .split('.')
        .map((word) => (word === '#' ? '.*' : word === '*' ? '[^.]+' : word.replace(/[-/\\^$+?()|[\]{}]/g, '\\$&')))
        .join('\\.')}$`,
    );
    if (compiledPatterns.size >= MAX_COMPILED_PATTERNS) compiledPatterns.clear();
    compiledPatterns.set(pattern, regex);
  }
  return regex.test(kind);
}
