export { start, BANKS_SCHEMA } from './service';
export { buildBanksSchema } from './schema';
