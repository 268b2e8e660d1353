import type { HTTPGraphQLRequest, HTTPGraphQLResponse } from '@apollo/server';
import { HeaderMap } from '@apollo/server';
import { completeAnswer } from '@gateway/federation';
import {
  ERROR_CODES,
  inRequestSpan,
  refusalBody,
  REQUEST_ID_HEADER,
  type LocalHandler,
  type LocalRequest,
  type LocalResponse,
  withHeaders,
} from '@gateway/kernel';
import type { HttpEdgeOptions } from './http-edge';
import { requestIdOf } from './request-id';
import type { RequestLabels, RouterContext } from './router-context';

/** Apollo's own entry without HTTP (ApolloServer.executeHTTPGraphQLRequest). */
export interface GraphQLExecutor {
  executeHTTPGraphQLRequest(request: {
    httpGraphQLRequest: HTTPGraphQLRequest;
    context: () => Promise<RouterContext>;
  }): Promise<HTTPGraphQLResponse>;
}

/**
 * The same request as HTTP /graphql without a socket, for rest-compat or a service in this process
 * (kernel's in-process.ts): the same request id, admission, forwarding and timing as the HTTP
 * stages, then Apollo run directly.
 */
export function createLocalEdge(
  apollo: GraphQLExecutor,
  { admit, forwardWhole, contextOf, timed }: HttpEdgeOptions,
): LocalHandler {
  const serve = async ({ headers, body, ip }: LocalRequest, requestId: string): Promise<LocalResponse> => {
    const labels: RequestLabels = { operation: 'unknown' };
    const done = timed(labels);
    let status = 500;
    try {
      // Awaited only when it waits (admission.ts: usually it does not, and an await costs promises).
      const admitting = admit(headers, ip, body, requestId, labels);
      const admission = admitting instanceof Promise ? await admitting : admitting;
      // Admission's headers and the forwarded answer's are made for this request: added to, not copied.
      const answerHeaders = admission.headers;
      answerHeaders['x-request-id'] = requestId;
      if (admission.refusal) {
        labels.outcome = admission.refusal.code;
        status = ERROR_CODES[admission.refusal.code].status;
        return { status, headers: answerHeaders, body: JSON.stringify(refusalBody(requestId, admission.refusal)) };
      }
      const context = contextOf(admission.principal, requestId, labels, ip);
      const forwarded = await forwardWhole(body, headers, context, labels);
      if (forwarded) {
        status = forwarded.status;
        // Its JSON text is written only if the caller reads it (kernel's jsonAnswer).
        return withHeaders(forwarded, Object.assign(forwarded.headers, answerHeaders));
      }
      const answer = completeAnswer(
        await apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest: {
            method: 'POST',
            headers: new HeaderMap([['content-type', 'application/json'], ...Object.entries(headers)]),
            search: '',
            body,
          },
          context: async () => context,
        }),
      );
      status = answer.status;
      return { ...answer, headers: { ...answer.headers, ...answerHeaders } };
    } finally {
      done(status);
    }
  };
  return (request) => {
    const requestId = requestIdOf(request.headers[REQUEST_ID_HEADER]);
    return inRequestSpan('router', requestId, () => serve(request, requestId));
  };
}
