import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { keysToCamel, keysToSnake } from './case';
import { foldDeepObjects } from './deep-object';
import { sendError } from './errors';
import type { Execute } from './executor';
import { beginFapiCall, challengeOn401 } from './fapi';
import { passBackRouterHeaders } from './headers';
import { GatewayError } from '@gateway/kernel';
import { MEDIA_TYPE, type HtmlFormRoute, type RestRoute, type RouteHeaders } from './route';
import { answerStreamed } from './stream-answer';
import { validate } from './validation';

/** A POST, PUT or PATCH without a documented body still refuses fields, so typos never pass silently. */
const NO_FIELDS = z.object({}).strict();

/** `/banks/{handle}` (OpenAPI) -> `/banks/:handle` (fastify). */
export const fastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

const takesBody = (route: RestRoute): boolean =>
  route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';

/** Refuses a body in a media type the route does not declare (form fields on a JSON route, JSON on the token endpoint). */
function assertBodyType(route: RestRoute, contentType: string | undefined): void {
  if (contentType === undefined) return;
  const accepted = (route.bodyTypes ?? ['json']).map((type) => MEDIA_TYPE[type]);
  const sent = contentType.split(';')[0]!.trim().toLowerCase();
  if (!accepted.includes(sent))
    throw new GatewayError('VALIDATION_ERROR', `content-type: send ${accepted.join(' or ')}`);
}

/** Serves the HTML of a route that is also a page (RestRoute.page). */
export type PageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** `GET /pay/{session_id}`: how pages are keyed to their route. */
export const routeKey = (route: Pick<RestRoute, 'method' | 'path'>): string => `${route.method} ${route.path}`;

/** JSON only for a client that asks for it and not for HTML: a browser's navigation gets the page. */
export const wantsJson = (accept: string | undefined = ''): boolean =>
  accept.includes('application/json') && !accept.includes('text/html');

const isFormPost = (request: FastifyRequest): boolean =>
  request.headers['content-type']?.split(';')[0]!.trim().toLowerCase() === MEDIA_TYPE.form;

/**
 * A form posted by a browser without script (RestRoute.htmlForm): the same operation, answered
 * 303 See Other to the next page whatever happens, so the browser never shows a JSON body and
 * never re-posts the form's credentials.
 */
async function answerHtmlForm(
  route: RestRoute,
  form: HtmlFormRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  execute: Execute,
): Promise<unknown> {
  const path = request.params as Record<string, string>;
  const seeOther = (location: string) =>
    reply.code(303).header('location', location).header('cache-control', 'no-store').send();
  try {
    const params = route.params ? validate(route.params, path, 'path') : {};
    const fields = validate(form.fields, request.body ?? {}, 'body') as Record<string, string>;
    const body = validate(route.body ?? NO_FIELDS, form.body(fields), 'body');
    const variables = route.variables({
      params: keysToCamel(params),
      query: {},
      body: keysToCamel(body),
      headers: clientHeaders(request),
    });
    const execution = await execute(request, route.operation, variables);
    passBackRouterHeaders(reply, execution.headers);
    if (execution.error) return seeOther(form.failure(path, execution.error.code));
    return seeOther(form.success(execution.data!));
  } catch (error) {
    if (error instanceof GatewayError) return seeOther(form.failure(path, error.code));
    throw error;
  }
}

/**
 * Serves each table entry: validate, convert keys, execute the operation, shape the answer.
 * A route that is also a page hands requests not asking for JSON to its page handler.
 */
export function registerRoutes(
  app: FastifyInstance,
  routes: readonly RestRoute[],
  execute: Execute,
  pages: Readonly<Record<string, PageHandler>> = {},
): void {
  // A page without its route (or the reverse) would be served undocumented, or not at all.
  const declared = routes.filter((route) => route.page).map(routeKey);
  const mismatch = [
    ...declared.filter((key) => !pages[key]),
    ...Object.keys(pages).filter((key) => !declared.includes(key)),
  ];
  if (mismatch.length) throw new Error(`routes and page handlers do not match: ${mismatch.join(', ')}`);

  for (const route of routes) {
    const page = pages[routeKey(route)];
    const responseHeaders = route.responseHeaders;
    app.route({
      method: route.method,
      url: fastifyPath(route.path),
      // Set before the body is read, so refusals of the body parser (a form field sent twice) carry them too.
      ...(responseHeaders
        ? { onRequest: async (_request: FastifyRequest, reply: FastifyReply) => void reply.headers(responseHeaders) }
        : {}),
      ...(route.fapi ? { onSend: challengeOn401 } : {}),
      handler: async (request, reply) => {
        if (route.fapi) beginFapiCall(request, reply);
        if (page && !wantsJson(request.headers.accept)) return page(request, reply);
        if (route.htmlForm && isFormPost(request))
          return answerHtmlForm(route, route.htmlForm, request, reply, execute);
        if (takesBody(route)) assertBodyType(route, request.headers['content-type']);
        const params = route.params ? validate(route.params, request.params, 'path') : {};
        const query = validate(
          route.query ?? NO_FIELDS,
          foldDeepObjects((request.query ?? {}) as Record<string, unknown>),
          'query',
        );
        const body = takesBody(route) ? validate(route.body ?? NO_FIELDS, request.body ?? {}, 'body') : {};

        const idempotencyKey = route.idempotent ? request.headers['idempotency-key'] : undefined;
        const headers = clientHeaders(request);
        if (typeof idempotencyKey === 'string') headers.idempotencyKey = idempotencyKey;
        const dpop = route.dpopProof ? request.headers.dpop : undefined;
        if (dpop !== undefined) headers.dpop = Array.isArray(dpop) ? dpop.join(', ') : dpop;
        const mapped = { params: keysToCamel(params), query: keysToCamel(query), body: keysToCamel(body), headers };
        if (route.stream) {
          const { stream } = route;
          return answerStreamed(
            route,
            stream,
            request,
            reply,
            execute,
            route.variables(mapped),
            stream.filename(mapped),
            (error) => inRestTerms(route, error),
          );
        }
        const execution = await execute(
          request,
          route.operation,
          route.variables(mapped),
          route.operationName?.(mapped),
        );
        passBackRouterHeaders(reply, execution.headers);
        if (execution.error)
          return sendError(reply, inRestTerms(route, execution.error), request.requestId, route.statusOverrides);
        if (route.status === 204 || !route.result) return reply.code(204).send();
        const status = route.accepted?.when(execution.data!) ? 202 : route.status;
        return reply.code(status).send(keysToSnake(route.result(execution.data!)));
      },
    });
  }
}

/** GraphQL's paging arguments and the query parameters lists take instead (limit, cursor). */
const PAGING_NAMES: Readonly<Record<string, string>> = { first: 'limit', after: 'cursor' };

/**
 * A refusal as the REST client can act on it: a subgraph names a bad page argument as GraphQL
 * does (`after: not a cursor of this list`), where the client sent `cursor`.
 */
function inRestTerms(route: RestRoute, error: GatewayError): GatewayError {
  const named = /^(first|after):/.exec(error.detail)?.[1];
  const restName = named ? PAGING_NAMES[named] : undefined;
  if (error.code !== 'VALIDATION_ERROR' || !restName || !route.query || !(restName in route.query.shape)) return error;
  return new GatewayError(
    error.code,
    `${restName}${error.detail.slice(named!.length)}`,
    error.message,
    error.retryAfterSeconds,
  );
}

/** The request headers any route may map (RouteHeaders) besides Idempotency-Key. */
function clientHeaders(request: FastifyRequest): RouteHeaders {
  const agent = request.headers['user-agent'];
  return typeof agent === 'string' && agent.length > 0 ? { userAgent: agent.slice(0, 512) } : {};
}
