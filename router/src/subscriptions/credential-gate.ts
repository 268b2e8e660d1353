import type { ExecutionResult } from 'graphql';
import type { WatchedConnection } from './credential-sweep';

type Stream = AsyncIterableIterator<ExecutionResult> & { return(): Promise<IteratorResult<ExecutionResult>> };

/**
 * A subscriber's stream as graphql-ws reads it: each message goes out only once the socket's
 * credential is known valid within the sweep period (checked again at that moment when the last
 * check is older), so between two sweep rounds no message leaves on a revoked credential. A
 * refusal has closed the socket; the stream ends with it.
 */
export function whileCredentialHolds(stream: Stream, connection: WatchedConnection): Stream {
  const gate: Stream = {
    async next() {
      const result = await stream.next();
      if (result.done || (await connection.ensureCurrent())) return result;
      return stream.return();
    },
    return: () => stream.return(),
    throw: () => stream.return(),
    [Symbol.asyncIterator]: () => gate,
  };
  return gate;
}
