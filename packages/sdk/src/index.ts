export { createGatewayClient, GatewayClient, type GatewayClientOptions, type ReportPath } from './client';
export {
  GatewayApiError,
  GatewayConnectionError,
  GatewayError,
  GatewayUnexpectedResponseError,
  type ErrorBody,
  type ErrorCode,
} from './errors';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, type FetchFunction } from './retry';
export type { ListItem, ListPath, Page } from './pagination';
export type { CallMethod, CallOptions, ResponseData } from './types';
export {
  DEFAULT_TOLERANCE_SECONDS,
  sign,
  verify,
  webhooks,
  WebhookVerificationError,
  type VerifyOptions,
  type WebhookHeaders,
  type WebhookVerificationFailure,
} from './webhooks';
export type { WebhookEvent, WebhookEventName, WebhookEventOf } from './webhook-events';
export type { components, operations, paths } from './generated/schema';
export { CURRENCY_EXPONENTS, formatMoney } from './money';
