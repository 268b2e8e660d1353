/**
 * REST half of the fuzzer: every operation of the served OpenAPI document (GET /openapi.json, so
 * routes added to rest-compat's table are fuzzed without a change here), requests generated from
 * its schemas, every answer checked against it.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import {
  addKnownId,
  arbitraryFor,
  junkString,
  mutate,
  mutationArb,
  type JsonSchema,
  type Known,
  type Mutation,
} from './values';

/** Headers that prove each security scheme of the document (name -> header values). */
export type Credentials = Record<string, Record<string, string>>;

export interface RestOperation {
  method: string;
  path: string;
  target: string;
  operation: JsonSchema;
}

export interface RestCase {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** What was done to the valid request, for the report. */
  note: string;
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation in the document. */
export function operationsOf(document: JsonSchema): RestOperation[] {
  const operations: RestOperation[] = [];
  for (const [path, item] of Object.entries<JsonSchema>(document.paths ?? {}))
    for (const [method, operation] of Object.entries<JsonSchema>(item))
      if (HTTP_METHODS.includes(method))
        operations.push({ method: method.toUpperCase(), path, target: `${method.toUpperCase()} ${path}`, operation });
  return operations;
}

const resolve = (document: JsonSchema, value: JsonSchema): JsonSchema => {
  if (typeof value?.$ref !== 'string') return value;
  return value.$ref
    .slice(2)
    .split('/')
    .reduce((node: any, part: string) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
};

const encodePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

/** Checks answers against the document: status documented, body in the schema for that status and media type. */
export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  private readonly compiled = new Map<string, ReturnType<Ajv2020['compile']> | undefined>();

  constructor(private readonly document: JsonSchema) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, 'openapi.json');
  }

  /** The validator for one response, or undefined when the document gives no schema. */
  validator(operation: RestOperation, status: string, mediaType: string) {
    const key = `${operation.target} ${status} ${mediaType}`;
    if (!this.compiled.has(key)) {
      const response = resolve(this.document, operation.operation.responses?.[status]);
      const schema = response?.content?.[mediaType]?.schema;
      const pointer = [
        'paths',
        operation.path,
        operation.method.toLowerCase(),
        'responses',
        status,
        'content',
        mediaType,
        'schema',
      ]
        .map(encodePointer)
        .join('/');
      this.compiled.set(key, schema ? this.ajv.compile({ $ref: `openapi.json#/${pointer}` }) : undefined);
    }
    return this.compiled.get(key);
  }

  errorsText(validate: { errors?: unknown }): string {
    return this.ajv.errorsText(validate.errors as any, { dataVar: 'body' });
  }
}

/** A header value fetch accepts (no control characters or code points above 255). */
const headerSafe = (value: string): string => value.replace(/[^\x20-\x7e\x80-\xff]/g, '?').slice(0, 4000);

interface CasePlan {
  mode: 'valid' | 'mutated' | 'auth';
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  mutation: Mutation;
  mutatePart: 'params' | 'query' | 'body' | 'headers';
  authChoice: number;
  wrongAuth: 'none' | 'junk' | 'other';
  idempotencyKey: string | undefined;
  junkHeader: { name: string; value: string } | undefined;
  asForm: boolean;
  acceptHtml: boolean;
  /** Path parameters not percent-encoded (a stray %, spaces): the router's URL decoding. */
  rawPath: boolean;
}

/** A path parameter named `id` takes the ids of its collection: /merchants/{id} -> merchant_id. */
function hintName(path: string, name: string, known: Known): string {
  if (name !== 'id') return name;
  const collection = /\/([a-z-]+)\/\{id\}/.exec(path)?.[1];
  const singular = collection?.replace(/-/g, '_').replace(/s$/, '');
  const candidates = [`${singular}_id`, ...(singular?.includes('_') ? [`${singular.split('_').pop()}_id`] : [])];
  return candidates.find((candidate) => known.ids.has(candidate)) ?? name;
}

/** Builds one request for `operation` from the seed `seed` (fast-check, so a seed is a replay). */
export function buildCase(
  document: JsonSchema,
  op: RestOperation,
  known: Known,
  credentials: Credentials,
  seed: number,
): RestCase {
  const parameters: JsonSchema[] = (op.operation.parameters ?? []).map((parameter: JsonSchema) =>
    resolve(document, parameter),
  );
  const byLocation = (location: string) => parameters.filter((parameter) => parameter.in === location);
  const paramArb = (location: string) =>
    fc.record<Record<string, unknown>>(
      Object.fromEntries(
        byLocation(location).map((parameter) => [
          parameter.name,
          arbitraryFor(parameter.schema, known, hintName(op.path, parameter.name, known)),
        ]),
      ),
      {
        requiredKeys: byLocation(location)
          .filter((parameter) => parameter.required)
          .map((parameter) => parameter.name as string) as never[],
      },
    );
  const content: Record<string, JsonSchema> = op.operation.requestBody?.content ?? {};
  const jsonSchema = content['application/json']?.schema;
  const formSchema = content['application/x-www-form-urlencoded']?.schema;
  const bodySchema = jsonSchema ?? formSchema;
  const idempotent = parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');

  const plan = fc.record<CasePlan>({
    mode: fc.constantFrom('valid', 'valid', 'valid', 'mutated', 'mutated', 'mutated', 'mutated', 'auth'),
    params: paramArb('path'),
    query: paramArb('query'),
    body: bodySchema ? arbitraryFor(bodySchema, known) : fc.constant(undefined),
    mutation: mutationArb,
    mutatePart: fc.constantFrom('params', 'query', 'body', 'body', 'body', 'headers'),
    authChoice: fc.nat(),
    wrongAuth: fc.constantFrom('none', 'junk', 'other'),
    idempotencyKey: idempotent
      ? fc.oneof(
          fc.constant(undefined),
          fc.uuid(),
          fc.constantFrom('', ' ', 'k'.repeat(256), 'key with spaces', 'ключ', 'é\u00ff', 'a,b'),
          fc.string({ minLength: 1, maxLength: 30 }),
        )
      : fc.constant(undefined),
    junkHeader: fc.option(
      fc.record({
        name: fc.constantFrom(
          'x-request-id',
          'content-type',
          'accept',
          'x-forwarded-for',
          'x-consent-id',
          'authorization',
          'x-fapi-interaction-id',
          'x-junk',
        ),
        value: junkString,
      }),
      { freq: 4 },
    ),
    asForm: fc.boolean(),
    acceptHtml: fc.boolean(),
    rawPath: fc.boolean(),
  });
  const [drawn] = fc.sample(plan, { seed, numRuns: 1 });
  const p = drawn!;
  const notes: string[] = [p.mode];

  let params = p.params;
  let query = p.query;
  let body = p.body;
  const headers: Record<string, string> = {};
  if (p.mode === 'mutated') {
    notes.push(`${p.mutatePart} ${p.mutation.kind}`);
    if (p.mutatePart === 'params' && Object.keys(params).length)
      params = mutate(
        params,
        p.mutation.kind === 'replace-body'
          ? { kind: 'replace-field', pathIndex: 0, junk: p.mutation.junk }
          : p.mutation,
      ) as any;
    else if (p.mutatePart === 'query') query = mutate(query, p.mutation) as any;
    else if (p.mutatePart === 'body' && bodySchema) body = mutate(body ?? {}, p.mutation);
    else if (p.mutatePart === 'body')
      body = mutate({}, p.mutation.kind === 'remove-field' ? { kind: 'extra-field', key: 'x', junk: 1 } : p.mutation);
    else if (p.junkHeader) headers[p.junkHeader.name] = headerSafe(p.junkHeader.value);
  }

  // Credentials: one alternative of the operation's security, or none/junk/another's in 'auth' mode.
  const alternatives: Array<Record<string, string[]>> = op.operation.security ?? [];
  const chosen = alternatives.length ? alternatives[p.authChoice % alternatives.length]! : {};
  if (p.mode !== 'auth') for (const scheme of Object.keys(chosen)) Object.assign(headers, credentials[scheme] ?? {});
  else if (p.wrongAuth === 'junk')
    Object.assign(headers, {
      authorization: 'Bearer mk_test_junk',
      'x-service-bank-key': 'sbk_oasis_junk',
      'x-service-admin-key': 'junk',
    });
  else if (p.wrongAuth === 'other') {
    const others = Object.keys(credentials).filter((scheme) => !(scheme in chosen));
    if (others.length) Object.assign(headers, credentials[others[p.authChoice % others.length]!]);
  }
  if (p.mode === 'auth') notes.push(`auth ${p.wrongAuth}`);
  if (p.idempotencyKey !== undefined) headers['idempotency-key'] = headerSafe(p.idempotencyKey);
  headers.accept = p.acceptHtml && p.mode === 'mutated' ? 'text/html' : 'application/json';

  let path = op.path;
  const raw = p.mode === 'mutated' && p.mutatePart === 'params' && p.rawPath;
  // A lone surrogate (fast-check's unicode strings make them) cannot be percent-encoded: it is sent as
  // U+FFFD, as a browser would (encodeURIComponent throws on it, which ended a run at seed 303240150).
  const segment = (text: string) => {
    const value = text.toWellFormed();
    return raw ? value.replace(/[/?#]/g, (c) => encodeURIComponent(c)) : encodeURIComponent(value);
  };
  for (const [name, value] of Object.entries(params))
    path = path.replace(`{${name}}`, segment(typeof value === 'string' ? value : JSON.stringify(value)));
  // A parameter the mutation removed: an empty segment.
  path = path.replace(/\{\w+\}/g, '');
  const search = new URLSearchParams();
  if (query && typeof query === 'object')
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value])
        search.append(name, typeof item === 'string' ? item : JSON.stringify(item));
    }
  const url = search.size ? `${path}?${search}` : path;

  let encoded: string | undefined;
  if (op.method === 'POST' || op.method === 'PATCH' || op.method === 'PUT') {
    const useForm = formSchema !== undefined && (jsonSchema === undefined || p.asForm);
    if (body !== undefined) {
      if (useForm && body && typeof body === 'object' && !Array.isArray(body)) {
        const form = new URLSearchParams();
        for (const [name, value] of Object.entries(body))
          form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
        encoded = form.toString();
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
      } else {
        encoded = JSON.stringify(body);
        headers['content-type'] ??= 'application/json';
      }
    }
  }
  return { method: op.method, url, headers, body: encoded, note: notes.join(', ') };
}

/** Ids and keys in a success body, so later requests can address real records. */
export function learn(
  known: Known,
  credentials: Credentials,
  merchantId: string,
  requestUrl: string,
  body: unknown,
): void {
  const visit = (value: unknown, depth: number) => {
    if (depth > 4 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.slice(0, 20).forEach((item) => visit(item, depth + 1));
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string' && (key === 'id' || key.endsWith('_id')) && item.length < 100)
        addKnownId(known, key, item);
      else visit(item, depth + 1);
    }
  };
  visit(body, 0);
  // A rotated key replaces the one the fuzzer holds, or every later call with it would be a 401.
  const answer = body as Record<string, any> | undefined;
  const bankKey = credentials.bankKey?.['x-service-bank-key'];
  if (typeof answer?.bank_key === 'string' && bankKey && answer.bank_key.split('_')[1] === bankKey.split('_')[1])
    credentials.bankKey = { 'x-service-bank-key': answer.bank_key };
  if (typeof answer?.api_key === 'string' && requestUrl.includes(merchantId))
    credentials.merchantKey = { authorization: `Bearer ${answer.api_key}` };
}

export interface RestCheck {
  status: number;
  contentType: string;
  text: string;
  requestIdHeader: string | null;
}

/** The problems with one answer: undocumented status, body outside the schema, a 4xx without the spec's error body. */
export function checkResponse(
  checker: ResponseChecker,
  op: RestOperation,
  answer: RestCheck,
): Array<{ kind: 'undocumented status' | 'schema mismatch' | 'bad error body'; problem: string }> {
  const problems: Array<{ kind: 'undocumented status' | 'schema mismatch' | 'bad error body'; problem: string }> = [];
  const status = String(answer.status);
  const responses: JsonSchema = op.operation.responses ?? {};
  if (!(status in responses))
    problems.push({
      kind: 'undocumented status',
      problem: `status ${status} not in the document (${Object.keys(responses).join(', ')})`,
    });
  const mediaType = answer.contentType.split(';')[0]!.trim().toLowerCase();
  let json: any;
  if (mediaType === 'application/json') {
    try {
      json = JSON.parse(answer.text);
    } catch {
      problems.push({ kind: 'schema mismatch', problem: 'content-type JSON but the body does not parse' });
    }
  }
  // A page answers a browser's navigation in HTML, errors included, where the document says so.
  const htmlPage =
    mediaType === 'text/html' && resolve(checker['document'], responses[status])?.content?.['text/html'] !== undefined;
  if (answer.status >= 400 && !htmlPage) {
    const error = json?.error;
    if (
      !error ||
      typeof error.code !== 'string' ||
      typeof error.message !== 'string' ||
      typeof error.detail !== 'string' ||
      typeof error.request_id !== 'string'
    )
      problems.push({
        kind: 'bad error body',
        problem: `not {error:{code,message,detail,request_id}} (${mediaType || 'no content-type'})`,
      });
    else if (error.request_id !== answer.requestIdHeader)
      problems.push({
        kind: 'bad error body',
        problem: `request_id ${error.request_id} != X-Request-Id ${answer.requestIdHeader}`,
      });
  }
  if (status in responses) {
    const documented = resolve(checker['document'], responses[status]);
    const documentedTypes = Object.keys(documented?.content ?? {});
    if (answer.text.length > 0 && answer.status !== 303 && !documentedTypes.includes(mediaType))
      problems.push({
        kind: 'schema mismatch',
        problem: `content-type ${mediaType || 'none'} not documented for ${status} (${documentedTypes.join(', ') || 'no body'})`,
      });
    else if (json !== undefined) {
      const validate = checker.validator(op, status, mediaType);
      if (validate && !validate(json))
        problems.push({ kind: 'schema mismatch', problem: checker.errorsText(validate) });
    }
  }
  return problems;
}
