export { start, PAYMENTS_SCHEMA } from './service';
export { buildPaymentsSchema } from './schema';
export type { PaymentsSettings } from './merchant/merchant.service';
