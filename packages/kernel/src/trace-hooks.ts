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
  /** Writes the active trace context into outgoing headers (W3C traceparent). */
  inject(headers: Record<string, string>): void;
  /** Runs `work` as a child of the trace context the incoming headers carry. */
  underRemoteParent<T>(headers: Record<string, string>, work: () => T): T;
}

let installed: RequestTracer | undefined;

/** Called once by @gateway/tracing when tracing is on (and by tests, which take it off again with undefined). */
export function installRequestTracer(tracer: RequestTracer | undefined): void {
  installed = tracer;
}

export function tagRequestSpan(service: string, requestId: string): void {
  installed?.tagRequest(service, requestId);
}

export function inSpan<T>(name: string, attributes: Record<string, string>, work: () => Promise<T>): Promise<T> {
  return installed ? installed.inSpan(name, attributes, work) : work();
}

/**
 * The headers of a call that no HTTP instrumentation sees (the framed channel: framed-transport.ts)
 * with the active trace context added, so the served side's span joins the caller's trace.
 */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  if (!installed) return headers;
  const traced = { ...headers };
  installed.inject(traced);
  return traced;
}

/**
 * A request served without HTTP (in process: in-process.ts; as a frame: framed-serving.ts) has no
 * HTTP server span to tag: it gets a span of its own, tagged like one, so a trace still shows each
 * service a request went through. In process the caller's context is the active one; a frame
 * brings it in `headers` (withTraceHeaders).
 */
export function inRequestSpan<T>(
  service: string,
  requestId: string,
  work: () => Promise<T>,
  headers?: Record<string, string>,
): Promise<T> {
  const tracer = installed;
  if (!tracer) return work();
  const traced = () =>
    tracer.inSpan(`${service} graphql (without HTTP)`, {}, async () => {
      tagRequestSpan(service, requestId);
      return work();
    });
  return headers?.traceparent ? tracer.underRemoteParent(headers, traced) : traced();
}
