/**
 * Checks a bank's core_base_url. Returns what is wrong with it, or null when it is fine. Shared by
 * the client (which refuses to start on a bad one) and by bank registration (which answers 400).
 * Production requires https: the spec obliges banks to serve the core interface over TLS.
 */
export function assertCoreBaseUrl(url: string, production: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL such as https://core.bank.example';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return `must use https (or http outside production), not ${parsed.protocol}`;
  if (production && parsed.protocol !== 'https:')
    return 'must use https in production (the core interface requires TLS)';
  if (parsed.username || parsed.password) return 'must not carry credentials; the internal key authenticates calls';
  if (parsed.search || parsed.hash) return 'must not have a query string or fragment';
  return null;
}

/** The base URL without trailing slashes, so paths join as `${base}/accounts/debit`. */
export const normalizeBaseUrl = (url: string): string => url.replace(/\/+$/, '');
