/** What a GraphQL operation name must look like to become a label value (the spec's Name, bounded in length). */
const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

/** The label of a request without an operation name. */
export const ANONYMOUS_OPERATION = 'anonymous';
/** The label of names past the limit, malformed, or first sent by a caller not allowed to add one. */
export const OTHER_OPERATION = 'other';

/**
 * GraphQL operation names as a metric label. Clients choose them, and every distinct value is a
 * new time series, so the set is bounded: the first `limit` well-formed names seen are kept (the
 * REST layer's, the dashboard's and a merchant's own queries arrive early and stay), anything
 * after that, or not shaped like a name, is folded into "other"; no name at all is "anonymous".
 * Callers without credentials (the checkout, consent and SCA pages, the token endpoint) add names
 * from a smaller allowance of their own, so an anonymous flood of made-up names takes at most
 * `anonymousLimit` places and never the ones authenticated clients' names need.
 */
export class OperationLabels {
  private readonly known = new Set<string>();
  private addedAnonymously = 0;

  constructor(
    private readonly limit = 200,
    private readonly anonymousLimit = 50,
  ) {}

  /** `authenticated`: whether the caller presented a credential the edge accepted. */
  label(name: unknown, authenticated = true): string {
    if (typeof name !== 'string' || name === '') return ANONYMOUS_OPERATION;
    if (this.known.has(name)) return name;
    if (!NAME.test(name) || this.known.size >= this.limit) return OTHER_OPERATION;
    if (!authenticated) {
      if (this.addedAnonymously >= this.anonymousLimit) return OTHER_OPERATION;
      this.addedAnonymously += 1;
    }
    this.known.add(name);
    return name;
  }
}
