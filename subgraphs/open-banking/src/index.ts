export { start, OPEN_BANKING_SCHEMA } from './service';
export { buildOpenBankingSchema } from './schema';
export type { OpenBankingSettings } from './tpp/tpp.service';
