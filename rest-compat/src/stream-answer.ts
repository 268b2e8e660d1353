import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayError } from '@gateway/kernel';
import { sendError } from './errors';
import type { Execute } from './executor';
import { passBackRouterHeaders } from './headers';
import type { GraphQLData, RestRoute, StreamedAnswer } from './route';

/** The longest Retry-After a stream waits out mid-file (the router's windows are a minute); longer cuts it. */
const LONGEST_WAIT_SECONDS = 60;

/** A file name safe in a header: the range's digits and dashes. */
export const attachmentName = (prefix: string, from: string, to: string): string =>
  `${prefix}_${from.replace(/[^0-9A-Za-z-]/g, '')}_${to.replace(/[^0-9A-Za-z-]/g, '')}.csv`;

/**
 * Streams a report (RestRoute.stream) page by page through the router, as every other REST call
 * goes: authentication and rate limits stay at the router's one door, and nothing here holds more
 * than one page. The first page is asked before the status is sent (a refusal is a plain error
 * answer). Backpressure: Readable.from asks the generator for the next page only when the socket
 * has taken the last one. A client that goes away destroys the stream (fastify), which ends the
 * generator: no further page is asked for, and the query of the page in flight is one page long.
 * A later page refused (the router down) cuts the connection: a truncated chunked body tells the
 * client the file is incomplete, where a status can no longer be sent. A page refused for the
 * rate limit waits out Retry-After and is asked again: a large report spends the merchant's read
 * budget a page at a time like any other reader, and only slows down.
 */
export async function answerStreamed(
  route: RestRoute,
  stream: StreamedAnswer,
  request: FastifyRequest,
  reply: FastifyReply,
  execute: Execute,
  variables: Record<string, unknown>,
  filename: string,
  restError: (error: GatewayError) => GatewayError,
): Promise<FastifyReply> {
  const first = await execute(request, route.operation, variables);
  passBackRouterHeaders(reply, first.headers);
  if (first.error) return sendError(reply, restError(first.error), request.requestId);

  let gone = false;
  reply.raw.once('close', () => (gone = !reply.raw.writableFinished));

  const pageAfter = async (cursor: string): Promise<GraphQLData | undefined> => {
    for (;;) {
      const page = await execute(request, route.operation, { ...variables, [stream.cursorVariable]: cursor });
      if (page.data) return page.data;
      const wait = page.error?.retryAfterSeconds;
      if (page.error?.code !== 'RATE_LIMITED' || wait === undefined || wait > LONGEST_WAIT_SECONDS) throw page.error;
      await sleep(Math.max(wait, 1) * 1000);
      if (gone) return undefined;
    }
  };

  async function* file(): AsyncGenerator<string> {
    yield stream.head;
    let data: GraphQLData | undefined = first.data!;
    while (data) {
      const { text, next } = stream.page(data);
      if (text) yield text;
      if (next === null || gone) return;
      data = await pageAfter(next);
    }
  }

  return reply
    .code(route.status)
    .header('content-type', stream.contentType)
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(Readable.from(file(), { objectMode: false }));
}
