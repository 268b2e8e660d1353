import type { z } from 'zod';
import type { ErrorCode } from '@gateway/kernel';
import type { CamelKeys } from './case';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a request body may be encoded (RestRoute.bodyTypes). */
export type BodyType = 'json' | 'form';

export const MEDIA_TYPE: Record<BodyType, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
};

/** The spec's credential headers, as named in the OpenAPI security schemes. */
export type Credential =
  | 'adminKey'
  | 'bankKey'
  | 'merchantKey'
  | 'tppToken'
  | 'obToken'
  | 'consentId'
  | 'sessionToken'
  | 'internalKey'
  | 'registrationToken';

type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;
type Parsed<S> = S extends z.ZodType ? CamelKeys<z.output<S>> : Record<string, never>;

/** Request headers a route may map onto variables (credentials never: the router reads those). */
export interface RouteHeaders {
  /** Idempotency-Key, on routes that declare `idempotent`. */
  idempotencyKey?: string;
  /** The client's User-Agent (evidence of a customer's acceptance), up to 512 characters. */
  userAgent?: string;
  /** The DPoP header (RFC 9449), on routes that declare `dpopProof`; a header sent twice comes joined, and is refused as such. */
  dpop?: string;
}

/** What a variable mapping receives: the validated request, keys already camelCase. */
export interface RouteRequest<P, Q, B> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  headers: RouteHeaders;
}

/** `data` of a GraphQL response: shaped by each route's own selection set. */
export type GraphQLData = Record<string, any>;

/**
 * One REST path mapped onto one GraphQL operation on the router. The entry is also the
 * OpenAPI source: schemas are snake_case as on the wire, with descriptions.
 */
export interface RestRoute<
  P extends AnyObjectSchema | undefined = any,
  Q extends AnyObjectSchema | undefined = any,
  B extends AnyObjectSchema | undefined = any,
> {
  method: HttpMethod;
  /** OpenAPI style: /banks/{handle}. */
  path: string;
  /** Groups routes in the docs. */
  tag: string;
  summary: string;
  description?: string;
  /** Alternatives, any one of which is accepted; [] for a public route. Docs only: the router authenticates. */
  auth: Credential[][];
  params?: P;
  query?: Q;
  /** `.strict()`: an unknown field is a 400 VALIDATION_ERROR naming it. */
  body?: B;
  /**
   * Media types the body may come in (default JSON only). 'form' is
   * application/x-www-form-urlencoded: OAuth's token endpoint (RFC 6749 4.1.3) and HTML forms
   * posted without script. A body in another type is 415.
   */
  bodyTypes?: BodyType[];
  /**
   * The route also serves an HTML form posted without script (a form-encoded body; bodyTypes
   * must include 'form'). The browser is answered 303 See Other, never a JSON body: to
   * `success` after the operation, back to `failure` (the page, which shows the refusal) when it
   * is refused. 303 because the POST carried credentials (an OTP): a 307 would have the browser
   * post them again to the next address (RFC 9700 4.11).
   */
  htmlForm?: HtmlFormRoute;
  /** Headers every answer of this route carries, errors included (e.g. Cache-Control: no-store on the token endpoint). */
  responseHeaders?: Record<string, string>;
  /**
   * An Open Banking call made with an access token (FAPI, fapi.ts): ?access_token= refused, every
   * 401 with WWW-Authenticate: Bearer error="invalid_token", x-fapi-interaction-id played back.
   */
  fapi?: boolean;
  /**
   * Takes a DPoP proof (RFC 9449) that the operation itself checks (the token and PAR endpoints),
   * handed to `variables` as headers.dpop and documented as the DPoP header. Data calls need no
   * flag: the router checks their proofs with the token.
   */
  dpopProof?: boolean;
  /** Statuses this route answers for codes it answers otherwise than kernel's table does (errors.ts sendError). */
  statusOverrides?: Partial<Record<ErrorCode, number>>;
  /** Takes an optional Idempotency-Key header (creating POSTs), handed to `variables` as headers.idempotencyKey. */
  idempotent?: boolean;
  /** The GraphQL document sent to the router. */
  operation: string;
  /**
   * For a document holding several operations: the one this request runs (the token endpoint
   * picks by grant_type). The first named operation names the route in the OpenAPI document.
   */
  operationName?(request: RouteRequest<P, Q, B>): string;
  variables(request: RouteRequest<P, Q, B>): Record<string, unknown>;
  /** Picks the REST body (camelCase) out of `data`; keys are then converted to snake_case. Omitted for 204. */
  result?(data: GraphQLData): unknown;
  status: 200 | 201 | 202 | 204;
  /**
   * Answers 202 Accepted instead of `status` when the result says the work waits for someone
   * (a payment order waiting for SCA), with the same body; `description` documents when.
   */
  accepted?: { when(data: GraphQLData): boolean; description: string };
  /** Success body, snake_case (docs, and the specs check real responses against it). */
  response?: z.ZodType;
  /** Codes this route answers besides the generic ones (docs). */
  errors: ErrorCode[];
  /**
   * The answer is a file streamed page by page (reports) instead of one JSON body: `operation` is
   * run again for each page with the previous page's cursor (StreamedAnswer). `result` is unused.
   */
  stream?: StreamedAnswer<P, Q, B>;
  /**
   * The path is also a page: what a browser gets there (docs). A request that does not ask for
   * JSON is handed to the page handler registered for this route; the table documents the JSON.
   */
  page?: string;
  /** Statuses besides 404 and 503 at which the page answers a browser with an HTML error page (docs). */
  pageErrorStatuses?: number[];
}

/**
 * A file answered in pages (RestRoute.stream): the first page is asked before anything is sent,
 * so a refusal is an ordinary error answer; later pages are written as they come.
 */
export interface StreamedAnswer<P = any, Q = any, B = any> {
  /** Content-Type of the file, e.g. text/csv; charset=utf-8. */
  contentType: string;
  /** The attachment's file name (Content-Disposition). */
  filename(request: RouteRequest<P, Q, B>): string;
  /** Written first (a CSV header row). */
  head: string;
  /** The variable that carries the cursor of the page asked for. */
  cursorVariable: string;
  /** One page of `data` as text to write, and the cursor of the next page (null: it was the last). */
  page(data: GraphQLData): { text: string; next: string | null };
  /** Docs: what the file holds, and an example of it. */
  description: string;
  example: string;
}

/** How a route answers an HTML form (RestRoute.htmlForm). */
export interface HtmlFormRoute {
  /** The form's fields (strict: an unknown one is refused), also the form's schema in the docs. */
  fields: AnyObjectSchema;
  /** The form's flat fields as the route's body (then validated like a JSON body). */
  body(fields: Record<string, string>): Record<string, unknown>;
  /** Where the browser goes after success, from the operation's `data`. */
  success(data: GraphQLData): string;
  /** Where the browser goes after a refusal (its spec code), e.g. back to the page with the code to show; `path` holds the raw path parameters. */
  failure(path: Record<string, string>, code: string): string;
}

/** Infers a route's schema types so its variable mapping is checked against them. */
export const defineRoute = <
  P extends AnyObjectSchema | undefined = undefined,
  Q extends AnyObjectSchema | undefined = undefined,
  B extends AnyObjectSchema | undefined = undefined,
>(
  route: RestRoute<P, Q, B>,
): RestRoute => route as RestRoute;
