export * from './database';
export * from './embedded';
export * from './data-dir-lock';
export * from './orm';
export * from './health';
export * from './one-statement';
export { Migration } from '@mikro-orm/migrations';
export type { MigrationObject } from '@mikro-orm/core';
export * from './contains-pattern';
