import { getOperationAST, parse } from 'graphql';
import { memoized, type LocalRequest, type LocalResponse } from '@gateway/kernel';
import { MAX_TOKENS } from './operation';

/** Whether a subgraph fetch only reads: a query, its operation found in the document (else never shared). */
const readsOnly = memoized(1000, (key): boolean => {
  const split = key.indexOf('\n');
  try {
    const document = parse(key.slice(split + 1), { maxTokens: MAX_TOKENS * 4 });
    return getOperationAST(document, key.slice(0, split) || undefined)?.operation === 'query';
  } catch {
    return false; // the subgraph says what is wrong with it, to each caller
  }
});

/**
 * One subgraph's calls, identical reads in flight at the same moment sharing one call (issue 32:
 * popular keys, a shop's alias or a big bank's capabilities, asked by many clients at once). A
 * call is shared only when it is a query (never a mutation or a subscription: each is its own
 * act) and only with the same principal (`who`, unsigned: the subgraph authorises and filters on
 * it, its client IP included), the same document, operation name and variables: everything the
 * subgraph's answer depends on (the request id only labels its logs, and binds the first caller's
 * signature; a joiner's is not sent). The principal is in the key for every fetch, public ones
 * too: telling which are public would need the subgraph's own rules. Its signature is not: it is
 * made for one request (kernel's principal.ts), so identical reads of two requests still share.
 *
 * Each waiter that joined gets its own copy of the answer (its text, which each parses for itself;
 * the value of an answer made in this process stays the first caller's) or of the error, the first caller the original; the entry is gone once the call settles, so a later identical read makes a new call
 * (nothing is cached: this is not a cache). `onShared` counts every call saved.
 */
export function sharingInFlight<Caller extends { who: string }>(
  call: (caller: Caller, body: LocalRequest['body']) => Promise<LocalResponse>,
  onShared: () => void,
): (caller: Caller, body: LocalRequest['body'], reads?: boolean) => Promise<LocalResponse> {
  // By document first: a route sends the same document string each time, whose hash V8 keeps, so
  // the per-request key is only who asks, the operation name and the variables.
  const inFlight = new Map<string, Map<string, Promise<LocalResponse>>>();
  return (caller, body, reads) => {
    // The router's own plans say whether a fetch reads (its operation kind); Apollo's calls are parsed once per document.
    if (!(reads ?? readsOnly(`${body.operationName ?? ''}\n${body.query}`))) return call(caller, body);
    const key = `${caller.who}\n${body.operationName ?? ''}\n${JSON.stringify(body.variables ?? {})}`;
    const known = inFlight.get(body.query);
    const pending = known?.get(key);
    if (pending) {
      onShared();
      joined.add(pending);
      return pending.then(copyAnswer, (error: unknown) => Promise.reject(copyError(error)));
    }
    const entries = known ?? new Map<string, Promise<LocalResponse>>();
    if (!known) inFlight.set(body.query, entries);
    // Removed at settlement, before any waiter runs on (one reaction, where finally() makes three promises).
    const settled = () => {
      if (entries.get(key) !== leading) return;
      entries.delete(key);
      if (entries.size === 0 && inFlight.get(body.query) === entries) inFlight.delete(body.query);
    };
    // The first caller takes the answer itself; only those who joined get copies.
    const leading: Promise<LocalResponse> = call(caller, body).then(
      (answer) => {
        settled();
        // Others joined: the text they copy is written now, before the first caller, who owns the
        // value (kernel's LocalResponse.json), can change it.
        if (joined.delete(leading)) void answer.body;
        return answer;
      },
      (error: unknown) => {
        settled();
        joined.delete(leading);
        throw error;
      },
    );
    entries.set(key, leading);
    return leading;
  };
}

/** The calls others joined (a call's entry is gone once it settles, this mark with it). */
const joined = new WeakSet<Promise<LocalResponse>>();

/** A joiner's own answer: the text and status, never the first caller's value (LocalResponse.json). */
const copyAnswer = (answer: LocalResponse): LocalResponse => ({
  status: answer.status,
  headers: { ...answer.headers },
  body: answer.body,
});

/** The same error, a separate object per waiter (Apollo and formatError may add to one they are given). */
function copyError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error & { extensions?: unknown };
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(error));
  const extensions = (error as { extensions?: unknown }).extensions;
  if (extensions && typeof extensions === 'object')
    Object.defineProperty(copy, 'extensions', { value: { ...extensions }, enumerable: true, writable: true });
  return copy;
}
