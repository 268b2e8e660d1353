import FastifyOtelInstrumentation from '@fastify/otel';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { installRequestTracer } from '@gateway/kernel';

/** Span attributes the services add (one key for the request id, as in the logs and error bodies). */
export const SERVICE_ATTRIBUTE = 'gateway.service';
export const REQUEST_ID_ATTRIBUTE = 'gateway.request_id';

/**
 * The OpenTelemetry SDK, loaded only when tracing is on (index.ts). Spans go to the OTLP/HTTP
 * endpoint of the standard variables as JSON, in batches (OTEL_BSP_SCHEDULE_DELAY, default 5 s);
 * W3C traceparent links them across processes. Instrumented: incoming HTTP (node:http, every
 * fastify server: rest-compat, router, subgraphs, sandbox cores), fastify's routes and handlers,
 * and undici, which every hop uses (rest-compat -> router, router -> subgraphs, services -> bank
 * cores). The router's @apollo/gateway adds its own plan and fetch spans through the global API.
 */
export function startSdk(serviceName: string): void {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Probes and scrapes would be most of the spans and say nothing about a request.
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => /^\/(healthz|readyz|metrics)(\?|$)/.test(request.url ?? ''),
      }),
      new UndiciInstrumentation(),
      // Registered on every fastify instance as it is created; a span per request and handler, not per hook.
      new FastifyOtelInstrumentation({ registerOnInitialization: true, instrumentHooks: false }),
    ],
  });

  const tracer = trace.getTracer('@gateway/tracing');
  installRequestTracer({
    tagRequest(service, requestId) {
      trace.getActiveSpan()?.setAttributes({ [SERVICE_ATTRIBUTE]: service, [REQUEST_ID_ATTRIBUTE]: requestId });
    },
    inSpan(name, attributes, work) {
      return tracer.startActiveSpan(name, { attributes }, context.active(), async (span) => {
        try {
          return await work();
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    // The framed channel between the router and the subgraphs is no HTTP the instrumentations see.
    inject(headers) {
      propagation.inject(context.active(), headers);
    },
    underRemoteParent(headers, work) {
      return context.with(propagation.extract(context.active(), headers), work);
    },
  });
}
