import { execute, getOperationAST, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { jsonAnswer, type LocalResponse } from '@gateway/kernel';
import { KnownDocuments } from './known-documents';
import { ensureGraphQLError, formatErrorsLikeApollo, markBadUserInput, type ErrorFormatter } from './lean-errors';

/** What the lean path reads of a POST /graphql: the parsed JSON body and two headers. */
export interface LeanRequest {
  body: unknown;
  contentType: string | undefined;
  accept: string | undefined;
}

/** The answer as Apollo would have sent it, with the operation's name for the duration histogram. */
export interface LeanAnswer extends LocalResponse {
  operationName: string | null;
}

/** A lean answer, or undefined: Apollo answers this one (see leanGraphQL). */
export type LeanHandler<Context> = (request: LeanRequest, context: () => Context) => Promise<LeanAnswer | undefined>;

/** Apollo's content type for a single result to a caller that accepts JSON or anything (the router, fetch, undici). */
const JSON_TYPE = 'application/json; charset=utf-8';
const ACCEPTS_JSON = new Set<string | undefined>([undefined, '*/*', 'application/json']);
/** Apollo's CSRF check lets any JSON body through; other content types stay with Apollo. */
const JSON_BODY = /^application\/json\s*(;|$)/i;
/** The cache-control headers Apollo's cache-control plugin replaces by no-store (any other it leaves). */
const REPLACED_CACHE_CONTROL = /^(no-store|max-age=\d+, (public|private))$/;

/**
 * Issue 32: a subgraph answers an ordinary POST /graphql whose document it already knows good
 * with graphql-js's `execute` alone, without Apollo Server's request pipeline (plugin hooks,
 * query hashing, content negotiation, the context copy that forks the EntityManager up front),
 * and gives the answer Apollo gives: same status, headers and body (lean-graphql.spec.ts runs the
 * same requests through both). Everything else is left to Apollo (undefined): a document not
 * known good (its errors are Apollo's to answer; known-documents.ts), batches, extensions
 * (persisted queries), an operationName that picks no operation, subscriptions, other Accept or
 * Content-Type values, and every request to a schema with @cacheControl hints, whose headers
 * Apollo's cache-control plugin works out.
 *
 * Apollo's answer is copied as it leaves the subgraph: errors through its formatting (with the
 * subgraph's formatGatewayError), bad variable values as BAD_USER_INPUT, and the 400 it gives
 * those turned into 200 as the subgraph's plugin in server.ts does.
 */
export function leanGraphQL<Context>(options: {
  schema: GraphQLSchema;
  formatError: ErrorFormatter;
}): LeanHandler<Context> | undefined {
  const { schema, formatError } = options;
  if (schema.getDirective('cacheControl')) return undefined;
  const documents = new KnownDocuments(schema);
  return async ({ body, contentType, accept }, context) => {
    if (!ACCEPTS_JSON.has(accept) || contentType === undefined || !JSON_BODY.test(contentType)) return undefined;
    if (!isOrdinary(body)) return undefined;
    const document = documents.get(body.query);
    if (!document) return undefined;
    const operationName = body.operationName ?? undefined;
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation === 'subscription') return undefined;

    let result: ExecutionResult;
    let errors: readonly unknown[] | undefined;
    let status: number | undefined;
    try {
      result = await execute({
        schema,
        document,
        contextValue: context(),
        variableValues: body.variables ?? undefined,
        operationName,
      });
      errors = result.errors?.map(markBadUserInput);
    } catch (error) {
      // Apollo's answer when execution itself throws: the error alone, 500 unless it says otherwise.
      result = {};
      errors = [ensureGraphQLError(error)];
      status = 500;
    }
    const formatted = errors && formatErrorsLikeApollo(errors, formatError);
    if (formatted?.head.status) status = formatted.head.status;
    // Apollo answers bad variable values (errors, no data) with 400; server.ts's plugin makes any 400 with errors 200.
    else if (errors?.length && result.data === undefined) status ??= 400;
    if (status === 400 && errors?.length) status = 200;

    const headers: Record<string, string> = Object.fromEntries(formatted?.head.headers ?? []);
    // Without cache hints the plugin's policy is uncacheable: no-store, unless a header it cannot parse is set.
    const cacheControl = headers['cache-control'];
    if (cacheControl === undefined || REPLACED_CACHE_CONTROL.test(cacheControl)) headers['cache-control'] = 'no-store';
    headers['content-type'] ??= JSON_TYPE;
    // Apollo's field order and its stringifyResult (JSON with a newline), written only if read: a
    // caller in this process takes the value (kernel's jsonAnswer).
    const json = { errors: formatted?.formatted, data: result.data, extensions: result.extensions };
    return Object.assign(jsonAnswer(status ?? 200, headers, json, '\n'), {
      operationName: operation.name?.value ?? null,
    });
  };
}

interface OrdinaryBody {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** A single request's body Apollo would take as is (runHttpQuery.ts): a query, and variables and operationName if any. */
function isOrdinary(body: unknown): body is OrdinaryBody {
  if (!body || typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) return false;
  const { query, variables, operationName, extensions } = body as Record<string, unknown>;
  return (
    typeof query === 'string' &&
    query !== '' &&
    (variables == null || (typeof variables === 'object' && !Array.isArray(variables))) &&
    (operationName == null || typeof operationName === 'string') &&
    extensions == null
  );
}
