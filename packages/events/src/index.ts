export * from './outbox.entity';
export * from './event';
export * from './bus';
export * from './memory-bus';
