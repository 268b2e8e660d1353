export { start, OPEN_BANKING_SCHEMA, type OpenBankingStartOptions } from './service';
export { buildOpenBankingSchema } from './schema';
export type { CoreCallSettings, OpenBankingSettings } from './settings';
export type { OpenBankingJobSettings } from './jobs';
export { openBankingConfigFrom, openBankingOwnEnvSchema, type OpenBankingConfig } from './config';
