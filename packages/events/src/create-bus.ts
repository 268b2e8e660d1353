import type { EventBus } from './bus';
import { createMemoryBus } from './memory-bus';
import { createRabbitBus, type RabbitBusOptions } from './rabbit-bus';

export interface CreateBusOptions extends RabbitBusOptions {
  /** RabbitMQ connection string (AMQP_URL); unset: the in-process bus of embedded mode. */
  amqpUrl?: string;
}

/** The one place that picks the adapter: RabbitMQ when AMQP_URL is set, in-process otherwise. */
export function createBus({ amqpUrl, ...rabbit }: CreateBusOptions = {}): EventBus {
  return amqpUrl ? createRabbitBus(amqpUrl, rabbit) : createMemoryBus();
}
