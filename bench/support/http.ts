import { Agent, request } from 'undici';

/** One connection pool for a benchmark's clients; close it at the end. */
export const benchAgent = new Agent({ connections: 200, keepAliveTimeout: 30_000 });

export interface HttpAnswer {
  status: number;
  body: any;
}

/** A request with a JSON body (or a form body, given as URLSearchParams) and the parsed answer. */
export async function http(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const form = body instanceof URLSearchParams;
  const response = await request(url, {
    method: method as 'GET',
    dispatcher: benchAgent,
    headers: {
      ...(body === undefined
        ? {}
        : { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: form ? body.toString() : JSON.stringify(body) }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** Like http(), but a status of 300 or more is an error naming the call and the answer. */
export async function ok(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const answer = await http(method, url, body, headers);
  if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}
