export { start, BANKS_SCHEMA, type BanksStartOptions } from './service';
export { buildBanksSchema } from './schema';
export { banksConfigFrom, banksEnvSchema, type BanksConfig } from './config';
export { migrations as BANKS_MIGRATIONS } from './migrations';
