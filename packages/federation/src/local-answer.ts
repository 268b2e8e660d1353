import type { HTTPGraphQLResponse } from '@apollo/server';
import type { LocalResponse } from '@gateway/kernel';

/**
 * Apollo's answer to an in-process request (executeHTTPGraphQLRequest) as the HTTP route would
 * have sent it. Incremental delivery (@defer) is not enabled anywhere, so answers are complete.
 */
export function completeAnswer(answer: HTTPGraphQLResponse): LocalResponse {
  if (answer.body.kind !== 'complete') throw new Error('incremental delivery is not served in process');
  return { status: answer.status ?? 200, headers: Object.fromEntries(answer.headers), body: answer.body.string };
}
