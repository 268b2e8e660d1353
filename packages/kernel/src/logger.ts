import pino, { type Logger } from 'pino';

export type { Logger };

/** Header and field names whose values are credentials: never written to a log. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-service-bank-key"]',
  'req.headers["x-service-admin-key"]',
  'req.headers["x-service-internal-key"]',
  'req.headers["x-session-token"]',
  'req.headers["x-gateway-principal"]',
  '*.api_key',
  '*.bank_key',
  '*.internal_key',
  '*.webhook_secret',
  '*.otp',
  '*.password',
  '*.access_token',
  '*.refresh_token',
  '*.code_verifier',
  '*.codeVerifier',
  '*.accessToken',
  '*.refreshToken',
  '*.session_token',
  '*.tpp_access_token',
  '*.admin_key',
];

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ name: service, level, redact: { paths: REDACT, censor: '[redacted]' } });
}
