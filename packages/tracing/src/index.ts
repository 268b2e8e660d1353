import { basename, dirname } from 'node:path';

/** The standard OpenTelemetry variables that turn tracing on (the second names the traces endpoint alone). */
const ENDPOINT_VARIABLES = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as const;

export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return ENDPOINT_VARIABLES.some((name) => Boolean(env[name]));
}

/**
 * The name a process reports as service.name: OTEL_SERVICE_NAME, or the workspace its main script
 * belongs to (subgraphs/payments/src/main.ts: payments; platform/src/main.ts: platform).
 */
export function serviceNameOf(mainFile: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (env.OTEL_SERVICE_NAME) return env.OTEL_SERVICE_NAME;
  return mainFile ? basename(dirname(dirname(mainFile))) : 'gateway';
}

let started = false;

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set,
 * and does nothing else otherwise: the SDK is only required here, on that branch, so a process
 * without the variable never loads it. Call it before the services are created (the first import
 * of a main), so every HTTP server and client is instrumented. Returns whether tracing runs.
 */
export function startTracing(serviceName: string): boolean {
  if (started || !tracingWanted()) return started;
  started = true;
  // A synchronous require on purpose: instrumentation must be in place before the first server starts.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./sdk') as typeof import('./sdk')).startSdk(serviceName);
  return true;
}
