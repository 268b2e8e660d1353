export { start, PAYMENTS_SCHEMA, type PaymentsStartOptions } from './service';
export { buildPaymentsSchema } from './schema';
export { paymentsEnvSchema, paymentsConfigFrom, type PaymentsConfig } from './config';
export type { PaymentsSettings } from './settings';
export { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from './engine/engine.settings';
export { migrations as PAYMENTS_MIGRATIONS } from './migrations';
