import { GatewayError } from '@gateway/kernel';

type Fetch = typeof fetch;

/**
 * The gateway's fetcher for subgraph calls: a deadline per call, and an unreachable or silent
 * subgraph becomes 503 SERVICE_UNAVAILABLE instead of a hang or an opaque 500.
 */
export function subgraphFetcher(name: string, timeoutMs: number) {
  const fetcher: Fetch = async (input, init) => {
    try {
      return await fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? `did not answer within ${timeoutMs} ms` : 'is unreachable';
      throw new GatewayError('SERVICE_UNAVAILABLE', `the ${name} service ${reason}`);
    }
  };
  return fetcher as never;
}
