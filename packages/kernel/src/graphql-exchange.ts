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

/** The HTTP answer the route would have sent: status, headers and the JSON body as text. */
export interface LocalResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type LocalHandler = (request: LocalRequest) => Promise<LocalResponse>;
