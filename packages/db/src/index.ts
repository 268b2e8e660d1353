export * from './database';
export * from './embedded';
export * from './orm';
export * from './health';
export { Migration } from '@mikro-orm/migrations';
export type { MigrationObject } from '@mikro-orm/core';
