/**
 * The authorization response (RFC 6749 4.1.2, 4.1.2.1): the TPP's redirect_uri with the
 * response parameters added. The registered URI's own query is kept as registered (RFC 6749
 * 3.1.2), except a parameter the gateway sets, which would otherwise appear twice with the
 * TPP possibly reading the wrong one. URLSearchParams encodes the values, so a long or
 * non-ASCII state comes back exactly as the TPP sent it.
 */
export function authorisationRedirect(redirectUri: string, params: ReadonlyArray<readonly [string, string]>): string {
  const url = new URL(redirectUri);
  const names = new Set(params.map(([name]) => name));
  if ([...url.searchParams.keys()].some((name) => names.has(name)))
    for (const name of names) url.searchParams.delete(name);
  const added = new URLSearchParams(params.map(([name, value]): [string, string] => [name, value])).toString();
  url.search = url.search.length > 1 ? `${url.search}&${added}` : `?${added}`;
  return url.toString();
}

/** Approved: code, consent_id, state (spec "Consent") and iss, the issuer (RFC 9207, mix-up defence). */
export function approvedRedirect(
  consent: { id: string; redirectUri: string; state: string },
  code: string,
  issuer: string,
): string {
  return authorisationRedirect(consent.redirectUri, [
    ['code', code],
    ['consent_id', consent.id],
    ['state', consent.state],
    ['iss', issuer],
  ]);
}

/** Rejected by the customer (or three wrong OTPs): error=access_denied (RFC 6749 4.1.2.1), consent_id, state, iss. */
export function rejectedRedirect(consent: { id: string; redirectUri: string; state: string }, issuer: string): string {
  return authorisationRedirect(consent.redirectUri, [
    ['error', 'access_denied'],
    ['consent_id', consent.id],
    ['state', consent.state],
    ['iss', issuer],
  ]);
}
