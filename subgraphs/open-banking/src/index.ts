export { start, OPEN_BANKING_SCHEMA, type OpenBankingStartOptions } from './service';
export { buildOpenBankingSchema } from './schema';
export type { CoreCallSettings, OpenBankingSettings } from './settings';
export type { OpenBankingJobSettings } from './jobs';
export { openBankingConfigFrom, openBankingOwnEnvSchema, type OpenBankingConfig } from './config';
export { migrations as OPEN_BANKING_MIGRATIONS } from './migrations';
