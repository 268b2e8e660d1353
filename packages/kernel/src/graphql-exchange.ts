/** What one GraphQL call carries, whichever transport (in process or HTTP) carries it: kernel's in-process.ts and pooled-http.ts. */

/** One request as the HTTP route would have received it. */
export interface LocalRequest {
  /** Lower-case header names, as Node gives them. */
  headers: Record<string, string>;
  /** The parsed JSON body: { query, variables, operationName }. */
  body: { query: string; variables?: Record<string, unknown>; operationName?: string };
  /** The client address the HTTP route would have read from the socket or X-Forwarded-For. */
  ip: string;
}

/** A GraphQL result as its JSON body holds it. */
export interface GraphQLResultValue {
  data?: unknown;
  errors?: readonly unknown[];
  extensions?: unknown;
}

/** The HTTP answer the route would have sent: status, headers and the JSON body as text. */
export interface LocalResponse {
  status: number;
  headers: Record<string, string>;
  /** A getter on an answer made here (jsonAnswer): a copy names it, a spread would leave it out. */
  body: string;
  /**
   * The value `body` is the JSON text of, when the answer was made in this process (jsonAnswer):
   * a caller here reads it (resultOf) instead of parsing the text, which then is never written.
   * Issue 32: on the one-process REST path the subgraph's stringify and rest-compat's parse of the
   * same answer each cost ~5 us. It belongs to the one caller it is returned to; an answer shared
   * with others (the router's in-flight sharing) reaches them as text.
   */
  json?: GraphQLResultValue;
}

/**
 * An answer made in this process from its value: the body is written from `json` when first read
 * (the HTTP route, the framed channel, a caller elsewhere), never when every reader takes `json`.
 * A class, so that every such answer shares one hidden class (an object literal with a getter gets
 * one of its own, and each site reading answers would see many); a copy names `body` (a spread
 * copies own properties only).
 */
class JsonAnswer implements LocalResponse {
  #text: string | undefined;
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly json: GraphQLResultValue,
    private readonly suffix: string,
  ) {}

  get body(): string {
    return (this.#text ??= `${JSON.stringify(this.json)}${this.suffix}`);
  }
}

/** An answer under other headers: its text is the first answer's, written only if read, and once. */
class ReheadedAnswer implements LocalResponse {
  readonly status: number;
  readonly json: GraphQLResultValue | undefined;
  constructor(
    private readonly answer: LocalResponse,
    readonly headers: Record<string, string>,
  ) {
    this.status = answer.status;
    this.json = answer.json;
  }

  get body(): string {
    return this.answer.body;
  }
}

export function jsonAnswer(
  status: number,
  headers: Record<string, string>,
  json: GraphQLResultValue,
  suffix = '',
): LocalResponse {
  return new JsonAnswer(status, headers, json, suffix);
}

/** `answer` under other headers, its text not read: written only if the new answer's is. */
export function withHeaders(answer: LocalResponse, headers: Record<string, string>): LocalResponse {
  return answer.json ? new ReheadedAnswer(answer, headers) : { status: answer.status, headers, body: answer.body };
}

/** The GraphQL result of an answer: its value when made in this process, else its body parsed (which may throw). */
export function resultOf<Result = GraphQLResultValue>(answer: LocalResponse): Result {
  return (answer.json ?? JSON.parse(answer.body)) as Result;
}

export type LocalHandler = (request: LocalRequest) => Promise<LocalResponse>;
