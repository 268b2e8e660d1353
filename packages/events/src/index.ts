export * from './outbox.entity';
export * from './event';
export * from './bus';
export * from './memory-bus';
export * from './rabbit-bus';
export * from './create-bus';
export * from './relay';
