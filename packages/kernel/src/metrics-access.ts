import type { Registry } from 'prom-client';
import { z } from 'zod';
import { errorBody, GatewayError, type ErrorBody } from './errors';
import { metricsText } from './metrics';
import { safeEqual } from './secrets';

/**
 * METRICS_TOKEN, read by every service that serves /metrics: with it, a scrape must send
 * `Authorization: Bearer <token>`; without it /metrics is open, which only development allows.
 */
export const envMetricsToken = z.string().min(24, 'at least 24 characters').optional();

/**
 * The production rule of a service's environment (zod superRefine): its figures (request counts by
 * operation, bank-core outcomes, money needing attention) are not for whoever reaches the port.
 */
export function requireMetricsTokenInProduction(
  env: { NODE_ENV?: string; METRICS_TOKEN?: string },
  ctx: z.RefinementCtx,
): void {
  if (env.NODE_ENV === 'production' && !env.METRICS_TOKEN)
    ctx.addIssue({ code: 'custom', path: ['METRICS_TOKEN'], message: 'required in production mode' });
}

/** What GET /metrics answers, whatever the HTTP server. */
export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | ErrorBody;
}

/**
 * GET /metrics: the registries' figures, merged (then the process's), or, when `token` is set and the
 * request does not carry it as a bearer token (compared in constant time), 401 UNAUTHORIZED in the
 * spec's error body.
 */
export async function metricsAnswer(
  registries: Registry | Registry[],
  request: { authorization?: string; requestId: string },
  token: string | undefined,
): Promise<MetricsAnswer> {
  if (token !== undefined) {
    const presented = /^Bearer (.+)$/i.exec(request.authorization ?? '')?.[1];
    if (presented === undefined || !safeEqual(presented, token)) {
      const refusal = new GatewayError('UNAUTHORIZED', '/metrics needs Authorization: Bearer <METRICS_TOKEN>');
      return {
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="metrics"' },
        body: errorBody(refusal, request.requestId),
      };
    }
  }
  const contentType = (Array.isArray(registries) ? registries[0]! : registries).contentType;
  return { status: 200, headers: { 'content-type': contentType }, body: await metricsText(registries) };
}
