import type { EventBus, Subscription } from '@gateway/events';
import type { Logger } from '@gateway/kernel';
import type { Directory } from './directory';

/** The banks service's events (its outbox): any of them may change how a bank's core is reached. */
export const BANK_EVENTS = 'bank.*';

/**
 * Keeps a service's cached bank routing no older than the bank's last change: every instance
 * (fan-out, not a competing consumer) drops its cache on each bank event, e.g.
 * bank.internal_key_rotated, so the new internal key goes out on the very next core call. Events
 * missed while the bus was away are covered by dropping everything when the subscription comes
 * back; the cache's own short lifetime bounds what a lost connection could leave behind.
 */
export function forgetBankRoutingOnChange(bus: EventBus, directory: Directory, logger: Logger): Promise<Subscription> {
  return bus.subscribe(
    BANK_EVENTS,
    async (event) => {
      directory.forgetBanks();
      logger.info({ event: event.kind, bank: event.aggregateId }, 'bank changed: cached bank routing dropped');
    },
    { onResumed: () => directory.forgetBanks() },
  );
}
