import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '@gateway/kernel';
import { MEDIA_TYPE, type Credential, type RestRoute } from '../route';
import { errorExamples, exampleOf } from './examples';
import { API_DESCRIPTION, TAG_DESCRIPTIONS } from './texts';
import { buildWebhooksSection, EVENTS_TAG, WEBHOOK_HEADER_PARAMETERS } from './webhooks-section';

/** The slice of OpenAPI 3.1 this layer produces (and the docs page reads). */
export type JsonSchema = Record<string, any>;

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  /** deepObject for an object parameter: `?metadata[order_id]=42`. */
  style?: 'deepObject';
  explode?: boolean;
}

/** A media type's schema with one example, or named examples (an error response: one per code). */
export interface OpenApiMedia {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary: string; value: unknown }>;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, OpenApiMedia>;
}

export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security: Array<Record<string, string[]>>;
  parameters: Array<OpenApiParameter | { $ref: string }>;
  requestBody?: { required: boolean; content: Record<string, OpenApiMedia> };
  responses: Record<string, OpenApiResponse>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; identifier?: string; url?: string };
    contact: { name: string; url?: string; email?: string };
  };
  servers: Array<{ url: string; description: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  /** The events the gateway POSTs to webhook URLs (webhooks-section.ts), by event name. */
  webhooks: Record<string, { post: JsonSchema }>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters: Record<string, OpenApiParameter | JsonSchema>;
    headers: Record<string, { description: string; schema: JsonSchema }>;
    securitySchemes: Record<Credential, JsonSchema>;
  };
}

export const SECURITY_SCHEMES: Record<Credential, JsonSchema> = {
  adminKey: { type: 'apiKey', in: 'header', name: 'X-Service-Admin-Key', description: 'Gateway operator key.' },
  bankKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-Bank-Key',
    description: 'Bank key, sbk_<bank_handle>_<random>.',
  },
  merchantKey: { type: 'http', scheme: 'bearer', description: 'Merchant API key, mk_test_… or mk_live_….' },
  tppToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The TPP itself: tpk_… for a spec TPP; for a fapi2 TPP the access token (cat_…) of the client_credentials grant, got at POST /ob/token with private_key_jwt.',
  },
  registrationToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Registration access token (rat_…) of a dynamically registered TPP (RFC 7592), from POST /ob/register.',
  },
  obToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Open Banking access token, at_…; always with X-Consent-Id. A fapi2 TPP’s token is DPoP-bound: sent as Authorization: DPoP <token> with a DPoP proof header.',
  },
  consentId: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Consent-Id',
    description: 'The consent the access token was issued for.',
  },
  sessionToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Session-Token',
    description: 'Customer session token, sst_….',
  },
  internalKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-Internal-Key',
    description: 'Pre-shared key of a bank core calling back.',
  },
};

/** JSON Schema 2020-12 is OpenAPI 3.1's dialect; the per-schema $schema key is left to the document. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const ERROR_SCHEMA = jsonSchema(
  z
    .object({
      error: z
        .object({
          code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
          message: z.string(),
          detail: z.string().describe('What exactly was wrong; names the field for VALIDATION_ERROR.'),
          request_id: z.string().describe('req_…, the same as the X-Request-Id header.'),
        })
        .strict(),
    })
    .strict(),
  'output',
);

const RESPONSE_HEADERS = {
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** Failures any route can answer, whatever it does. */
const GENERIC_ERRORS: ErrorCode[] = [
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): OpenApiParameter[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input');
  const required = new Set<string>(object.required ?? []);
  return Object.entries<JsonSchema>(object.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    ...(description ? { description } : {}),
    schema: property,
    // An object in a query is sent as field[key]=value (register-routes.ts folds it back).
    ...(location === 'query' && property.type === 'object' ? { style: 'deepObject' as const, explode: true } : {}),
  }));
}

/** Headers of a FAPI route's answers (fapi.ts): the interaction id on all, the Bearer challenge on 401. */
const FAPI_HEADERS = { 'x-fapi-interaction-id': { $ref: '#/components/headers/x-fapi-interaction-id' } };

/** Routes that take a DPoP proof: the token and PAR endpoints' own, or a fapi2 TPP's DPoP-bound token (RFC 9449). */
const takesDpop = (route: RestRoute): boolean =>
  Boolean(route.dpopProof) || route.auth.some((alternative) => alternative.some((c) => DPOP_BOUND.includes(c)));
const DPOP_BOUND: readonly Credential[] = ['obToken', 'tppToken'];

/** The status a route answers a code with: its own override (the token endpoint's DPoP 400s), else kernel's table. */
const statusOf = (route: RestRoute, code: ErrorCode): number =>
  route.statusOverrides?.[code] ?? ERROR_CODES[code].status;

const headersOf = (route: RestRoute, status: number) => {
  const dpopRefusal =
    takesDpop(route) && [statusOf(route, 'invalid_dpop_proof'), statusOf(route, 'use_dpop_nonce')].includes(status);
  return {
    ...RESPONSE_HEADERS,
    ...(status === 429 ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
    ...(route.fapi ? FAPI_HEADERS : {}),
    ...((route.fapi && status === 401) || dpopRefusal
      ? { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } }
      : {}),
    ...(takesDpop(route) ? { 'DPoP-Nonce': { $ref: '#/components/headers/DPoP-Nonce' } } : {}),
  };
};

/** The refusal of a live credential whose holder an operator suspended (API-CONTRACT "Operator controls"). */
const SUSPENDED_BY_CREDENTIAL: Partial<Record<Credential, ErrorCode>> = {
  merchantKey: 'MERCHANT_SUSPENDED',
  bankKey: 'BANK_SUSPENDED',
  tppToken: 'TPP_SUSPENDED',
  obToken: 'TPP_SUSPENDED',
  registrationToken: 'TPP_SUSPENDED',
};

/**
 * Refusals of the router's authentication, whatever the route (found by the fuzzer, issue 13): a
 * credential header that is sent is checked even on a public route (a bad one is 401, and one of
 * a suspended holder 403, found by the fuzzer again with suspension), a valid credential of a
 * principal the route does not take is 403.
 */
const authErrors = (route: RestRoute): ErrorCode[] =>
  route.auth.length
    ? [
        'UNAUTHORIZED',
        'FORBIDDEN',
        ...route.auth.flat().flatMap((credential) => SUSPENDED_BY_CREDENTIAL[credential] ?? []),
      ]
    : ['UNAUTHORIZED', ...new Set(Object.values(SUSPENDED_BY_CREDENTIAL))];

const DPOP_ERRORS: ErrorCode[] = ['invalid_dpop_proof', 'use_dpop_nonce'];

/** Statuses a page (RestRoute.page) answers a browser in HTML: its "not found" and "unavailable" pages. */
const PAGE_ERROR_STATUSES = [404, 503];
/** Those statuses and the route's own (RestRoute.pageErrorStatuses). */
const pageErrorStatuses = (route: RestRoute): number[] => [...PAGE_ERROR_STATUSES, ...(route.pageErrorStatuses ?? [])];

function errorResponses(route: RestRoute): Record<string, OpenApiResponse> {
  const codes = takesDpop(route) ? [...route.errors, ...DPOP_ERRORS] : route.errors;
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...codes, ...authErrors(route), ...GENERIC_ERRORS])) {
    const status = statusOf(route, code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, OpenApiResponse> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: list.map((code) => `${code}: ${ERROR_CODES[code].message}`).join('; '),
      headers: headersOf(route, status),
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples: errorExamples(list) },
        ...(route.page && pageErrorStatuses(route).includes(status)
          ? { 'text/html': { schema: { type: 'string', description: 'The page’s own error page, for a browser.' } } }
          : {}),
      },
    };
  }
  return responses;
}

const operationId = (route: RestRoute): string =>
  route.operation.match(/^\s*(?:query|mutation)\s+(\w+)/)?.[1]?.replace(/^./, (c) => c.toLowerCase()) ??
  `${route.method.toLowerCase()}${route.path.replace(/\W+/g, '_')}`;

function operationOf(route: RestRoute): OpenApiOperation {
  const success: OpenApiResponse = {
    description:
      route.status === 204
        ? 'Done; no body.'
        : route.status === 201
          ? 'Created.'
          : route.status === 202
            ? 'Accepted: it will happen shortly.'
            : 'OK.',
    headers: headersOf(route, route.status),
    ...(route.response
      ? { content: { 'application/json': mediaWithExample(jsonSchema(route.response, 'output')) } }
      : {}),
  };
  // A streamed file (reports): its media type instead of JSON, sent as an attachment.
  if (route.stream) {
    success.headers = {
      ...success.headers,
      'Content-Disposition': { $ref: '#/components/headers/Content-Disposition' },
    };
    success.content = {
      [route.stream.contentType.split(';')[0]!]: {
        schema: { type: 'string', description: route.stream.description },
        example: route.stream.example,
      },
    };
  }
  // A path that is also a page: the same 200 in HTML, for a browser.
  if (route.page)
    success.content = { ...success.content, 'text/html': { schema: { type: 'string', description: route.page } } };
  // A route that also takes a script-less HTML form answers the browser 303 (RestRoute.htmlForm).
  const seeOther: Record<string, OpenApiResponse> = route.htmlForm
    ? {
        '303': {
          description: 'See Other (form posts only): Location is the next page, after success or refusal.',
          headers: RESPONSE_HEADERS,
        },
      }
    : {};
  const accepted: Record<string, OpenApiResponse> = route.accepted
    ? { '202': { ...success, description: `Accepted: ${route.accepted.description}`, headers: headersOf(route, 202) } }
    : {};
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    // One entry per alternative; an empty list means no credential is needed.
    security: route.auth.map((alternative) => Object.fromEntries(alternative.map((credential) => [credential, []]))),
    parameters: [
      ...parametersOf(route.params, 'path'),
      ...parametersOf(route.query, 'query'),
      ...(route.idempotent ? [{ $ref: '#/components/parameters/Idempotency-Key' }] : []),
      ...(route.fapi ? [{ $ref: '#/components/parameters/x-fapi-interaction-id' }] : []),
      ...(takesDpop(route) ? [{ $ref: '#/components/parameters/DPoP' }] : []),
      { $ref: '#/components/parameters/X-Request-Id' },
    ],
    // An absent body is read as `{}`: a body none of whose fields is required may be left out.
    ...(route.body || route.htmlForm
      ? { requestBody: { required: route.body?.safeParse({}).success === false, content: bodyContent(route) } }
      : {}),
    responses: { [String(route.status)]: success, ...accepted, ...seeOther, ...errorResponses(route) },
  };
}

const mediaWithExample = (schema: JsonSchema): OpenApiMedia => ({ schema, example: exampleOf(schema) });

/** The request body in each media type the route accepts, one schema for all. */
function bodyContent(route: RestRoute): Record<string, OpenApiMedia> {
  const schema = jsonSchema(route.body ?? z.object({}).strict(), 'input');
  // An HTML form's fields are its own (flat) shape.
  const formSchema = route.htmlForm ? jsonSchema(route.htmlForm.fields, 'input') : schema;
  return Object.fromEntries(
    (route.bodyTypes ?? ['json']).map((type) => [
      MEDIA_TYPE[type],
      mediaWithExample(type === 'form' ? formSchema : schema),
    ]),
  );
}

/**
 * The document's tags, in the order the docs' sidebar shows them (TAG_DESCRIPTIONS' order:
 * Payments first, the operator's and the banks' routes last), the webhook events after Webhooks.
 * A route tag without a description is a defect of the table, found when the document is built.
 */
function sidebarTags(routes: readonly RestRoute[]): OpenApiDocument['tags'] {
  const used = new Set(routes.map((route) => route.tag));
  for (const name of used)
    if (!TAG_DESCRIPTIONS[name]) throw new Error(`route tag "${name}" has no description in openapi/texts.ts`);
  const tags = Object.entries(TAG_DESCRIPTIONS)
    .filter(([name]) => used.has(name))
    .map(([name, description]) => ({ name, description }));
  const webhooks = tags.findIndex((tag) => tag.name === 'Webhooks');
  tags.splice(webhooks < 0 ? tags.length : webhooks + 1, 0, EVENTS_TAG);
  return tags;
}

/**
 * OpenAPI 3.1 of every route in the table, generated from the same entries that serve them.
 * `serverUrl`: the public base address clients call (rest-compat's own address unless a public one is set).
 */
export function buildOpenApiDocument(routes: readonly RestRoute[], serverUrl: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route);
  const events = buildWebhooksSection();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Gateway REST API',
      version: '1.0.0',
      description: API_DESCRIPTION,
      // The repository carries no open licence (package.json is private): the document says so rather than leave it unsaid.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Gateway operator', url: `${serverUrl.replace(/\/+$/, '')}/` },
    },
    servers: [{ url: serverUrl, description: 'This gateway' }],
    tags: sidebarTags(routes),
    paths,
    webhooks: events.webhooks,
    components: {
      schemas: { Error: ERROR_SCHEMA, ...events.schemas },
      parameters: {
        ...WEBHOOK_HEADER_PARAMETERS,
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Unique per request, 1-255 printable characters, scoped to the merchant. Repeated within 24 hours with the same body it returns the first answer; ' +
            'with another body 422 IDEMPOTENCY_KEY_REUSED; while the first request still runs 409 IDEMPOTENCY_KEY_IN_USE.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
        DPoP: {
          name: 'DPoP',
          in: 'header',
          required: false,
          description:
            'A DPoP proof (RFC 9449): a JWT of typ dpop+jwt signed (ES256, PS256 or EdDSA) by the private key whose public jwk is in its header, with htm (this method), ' +
            'htu (this URL without query), iat within ±10 s of the server clock, a jti never used before, ath (base64url SHA-256 of the access token) when a token is sent, ' +
            'and the last DPoP-Nonce when the server requires nonces (production). Required with a DPoP-bound token (Authorization: DPoP <token>: every fapi2 TPP token) ' +
            'and at the token endpoint for fapi2 TPPs. Refusals: invalid_dpop_proof, use_dpop_nonce.',
          schema: { type: 'string' },
        },
        'x-fapi-interaction-id': {
          name: 'x-fapi-interaction-id',
          in: 'header',
          required: false,
          description:
            'Open Banking calls: an RFC 4122 UUID identifying this interaction, played back in the answer; a fresh one is sent when absent or not a UUID.',
          schema: { type: 'string', format: 'uuid' },
        },
        'X-Request-Id': {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description: 'req_ followed by up to 64 letters or digits; echoed back. Generated when absent or malformed.',
          schema: { type: 'string', pattern: '^req_[0-9A-Za-z]{1,64}$' },
        },
      },
      headers: {
        'X-Request-Id': {
          description: 'Identifies the request in every service log and in the error body.',
          schema: { type: 'string' },
        },
        'X-RateLimit-Limit': { description: 'Requests allowed in the current window.', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before retrying (429 only).', schema: { type: 'integer' } },
        'Content-Disposition': {
          description: 'attachment; filename="…": a streamed file (reports) is saved, not shown.',
          schema: { type: 'string' },
        },
        'x-fapi-interaction-id': {
          description: "The caller's x-fapi-interaction-id, or a fresh UUID.",
          schema: { type: 'string', format: 'uuid' },
        },
        'WWW-Authenticate': {
          description:
            'Bearer error="invalid_token" (RFC 6750) on every 401 of an Open Banking data call made with a bearer token; DPoP error="invalid_token", ' +
            'error="invalid_dpop_proof" or error="use_dpop_nonce" with algs="ES256 PS256 EdDSA" (RFC 9449 7.1) for a DPoP-bound token or a refused proof.',
          schema: { type: 'string' },
        },
        'DPoP-Nonce': {
          description:
            'The nonce the next DPoP proof is to carry (RFC 9449 8): sent with use_dpop_nonce, with every DPoP refusal and with answers to requests that carried a proof.',
          schema: { type: 'string' },
        },
      },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
