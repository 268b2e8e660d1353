/**
 * The few places where services say something to a tracer: which service serves a request and its
 * request id, and a span around a bank-core call. Services call these functions; they do nothing
 * until @gateway/tracing installs a tracer, which it does only when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set. So without tracing no OpenTelemetry module is loaded and a call costs one branch.
 */
export interface RequestTracer {
  /** Marks the span of the request being served with the service's name and the request id. */
  tagRequest(service: string, requestId: string): void;
  /** Runs `work` inside a span of its own (ended when `work` settles, marked as an error when it throws). */
  inSpan<T>(name: string, attributes: Record<string, string>, work: () => Promise<T>): Promise<T>;
}

let installed: RequestTracer | undefined;

/** Called once by @gateway/tracing when tracing is on. */
export function installRequestTracer(tracer: RequestTracer): void {
  installed = tracer;
}

export function tagRequestSpan(service: string, requestId: string): void {
  installed?.tagRequest(service, requestId);
}

export function inSpan<T>(name: string, attributes: Record<string, string>, work: () => Promise<T>): Promise<T> {
  return installed ? installed.inSpan(name, attributes, work) : work();
}

/**
 * A request served in process (in-process.ts) has no HTTP server span to tag: it gets a span of its
 * own, tagged like one, so a trace still shows each service a request went through.
 */
export function inRequestSpan<T>(service: string, requestId: string, work: () => Promise<T>): Promise<T> {
  if (!installed) return work();
  return installed.inSpan(`${service} graphql (in process)`, {}, async () => {
    tagRequestSpan(service, requestId);
    return work();
  });
}
