/**
 * The fuzz loop: request i goes to target i (round robin over every REST operation of
 * /openapi.json and every root field of the supergraph) and is built from seed + i, so one seed
 * replays a run and FUZZ_REPLAY=i one request of it.
 */
import type { Fixture } from './fixture';
import { buildOperation, checkGraphQLAnswer, loadSchema, rootFieldsOf, type GraphQLRootField } from './graphql';
import { Report } from './report';
import { buildCase, checkResponse, learn, operationsOf, ResponseChecker, type RestOperation } from './rest';

export interface FuzzOptions {
  seed: number;
  /** Stops sending after this long. */
  seconds: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Only this request index (a replay); printed in full. */
  replay?: number;
  /** Only the targets whose name contains this (`POST /payments/sessions`, `graphql mutation`). */
  only?: string;
  /** Every request and answer, for a replay. */
  log?: (line: string) => void;
}

type Target = { rest: RestOperation } | { graphql: GraphQLRootField };

const REQUEST_TIMEOUT_MS = 30_000;
const clip = (text: string, max = 600) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

export async function runFuzz(
  fixture: Fixture,
  options: FuzzOptions,
): Promise<{ report: Report; seconds: number; targets: number }> {
  const started = Date.now();
  const report = new Report();
  const document = (await (await fetch(`${fixture.restUrl}/openapi.json`)).json()) as Record<string, any>;
  const checker = new ResponseChecker(document);
  const restOperations = operationsOf(document);
  const schema = await loadSchema(fixture.graphqlUrl, fixture.credentials.adminKey ?? {});
  const rootFields = rootFieldsOf(schema);
  // REST twice in the rotation: it is where the validation lives.
  const targets: Target[] = [...restOperations, ...restOperations]
    .map((rest) => ({ rest }) as Target)
    .concat(rootFields.map((graphql) => ({ graphql })))
    .filter(
      (target) =>
        !options.only || ('rest' in target ? target.rest.target : target.graphql.target).includes(options.only),
    );
  if (!targets.length) throw new Error(`no target matches ${options.only}`);
  const credentialSets = Object.keys(fixture.credentials);
  let lastRenewal = 0;

  const restRequest = async (op: RestOperation, index: number) => {
    const request = buildCase(document, op, fixture.known, fixture.credentials, options.seed + index);
    const described = `${request.method} ${request.url} [${request.note}] headers ${JSON.stringify(request.headers)} body ${clip(request.body ?? '', 300)}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${fixture.restUrl}${request.url}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      report.count(op.target, 0);
      report.add({
        kind: 'transport',
        target: op.target,
        status: 0,
        problem: String((error as Error).message),
        seed: options.seed,
        index,
        request: described,
        response: '',
      });
      return;
    }
    report.count(op.target, response.status);
    options.log?.(`${described}\n-> ${response.status} ${response.headers.get('content-type')} ${clip(text, 2000)}`);
    const finding = (kind: Parameters<Report['add']>[0]['kind'], problem: string) =>
      report.add({
        kind,
        target: op.target,
        status: response.status,
        problem,
        seed: options.seed,
        index,
        request: described,
        response: clip(text),
      });
    if (response.status >= 500) finding('5xx', `${response.status} ${clip(text, 200)}`);
    for (const problem of checkResponse(checker, op, {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text,
      requestIdHeader: response.headers.get('x-request-id'),
    }))
      finding(problem.kind, problem.problem);
    if (response.status < 300 && text) {
      try {
        learn(fixture.known, fixture.credentials, fixture.merchantId, request.url, JSON.parse(text));
      } catch {
        // HTML pages: nothing to learn.
      }
    }
    // The fixture's records, put back when a valid request changed them.
    if (response.status < 300 && op.method === 'PATCH' && op.path.startsWith('/banks/')) await fixture.repairBanks();
    if (response.status < 300 && op.method === 'POST') {
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        answer = undefined;
      }
      await fixture.repairAfter(op.path, request.url, answer);
    }
    if (response.status === 401 && request.headers['x-consent-id'] && Date.now() - lastRenewal > 5_000) {
      lastRenewal = Date.now();
      await fixture.renewGrant().catch(() => undefined);
    }
  };

  const graphqlRequest = async (root: GraphQLRootField, index: number) => {
    const { query, note } = buildOperation(root, fixture.known, options.seed + index);
    const credential = fixture.credentials[credentialSets[(options.seed + index) % credentialSets.length]!] ?? {};
    const headers = {
      'content-type': 'application/json',
      ...credential,
      ...(credential['x-consent-id'] ? {} : fixture.credentials.consentId),
    };
    const described = `POST /graphql [${note}] headers ${JSON.stringify(headers)} ${clip(query, 500)}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(fixture.graphqlUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      report.count(root.target, 0);
      report.add({
        kind: 'transport',
        target: root.target,
        status: 0,
        problem: String((error as Error).message),
        seed: options.seed,
        index,
        request: described,
        response: '',
      });
      return;
    }
    report.count(root.target, response.status);
    options.log?.(`${described}\n-> ${response.status} ${clip(text, 2000)}`);
    const finding = (kind: Parameters<Report['add']>[0]['kind'], problem: string) =>
      report.add({
        kind,
        target: root.target,
        status: response.status,
        problem,
        seed: options.seed,
        index,
        request: described,
        response: clip(text),
      });
    if (response.status >= 500) finding('5xx', `${response.status} ${clip(text, 200)}`);
    for (const problem of checkGraphQLAnswer(response.status, text)) finding('graphql error', problem);
    // A key rotated over GraphQL is given to the sandbox core as one rotated over REST is: without
    // it the core refused every later call with the gateway's new key (a 502 CBS_ERROR per call).
    if (root.name === 'rotateInternalKey' && response.status < 300) {
      const fresh = parsedOrUndefined(text)?.data?.rotateInternalKey?.internalKey;
      const handle = /rotateInternalKey\(\s*handle:\s*"((?:[^"\\]|\\.)*)"/.exec(query)?.[1];
      if (typeof fresh === 'string' && handle !== undefined)
        await fixture.repairAfter(
          '/banks/{handle}/rotate-internal-key',
          `/banks/${encodeURIComponent(handle)}/rotate-internal-key`,
          {
            internal_key: fresh,
          },
        );
    }
  };

  const sendOne = (target: Target, index: number) =>
    'rest' in target ? restRequest(target.rest, index) : graphqlRequest(target.graphql, index);

  // Rotating a bank's internal key races every core call in flight: the gateway sends the new key
  // at once, and the sandbox core learns it only once the fuzzer has the answer (repairAfter). A
  // call in between was refused by the core, a 502 CBS_ERROR the gateway answers rightly but the
  // run counted as a finding (seen twice in 120 s runs). So such a request runs alone: the others
  // wait for it and its repair, and it waits for those in flight.
  const gate = { inFlight: 0, alone: null as Promise<void> | null };
  const rotatesAKey = (target: Target) =>
    /rotate-internal-key|rotateInternalKey/.test('rest' in target ? target.rest.target : target.graphql.target);
  const send = async (index: number): Promise<void> => {
    const target = targets[index % targets.length]!;
    while (gate.alone) await gate.alone;
    if (!rotatesAKey(target)) {
      gate.inFlight++;
      try {
        return await sendOne(target, index);
      } finally {
        gate.inFlight--;
      }
    }
    const alone = (async () => {
      while (gate.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await sendOne(target, index);
    })();
    gate.alone = alone.finally(() => {
      gate.alone = null;
    });
    return gate.alone;
  };

  if (options.replay !== undefined) {
    await send(options.replay);
  } else {
    const deadline = started + options.seconds * 1000;
    let next = 0;
    const worker = async () => {
      while (Date.now() < deadline) await send(next++);
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  }
  return { report, seconds: (Date.now() - started) / 1000, targets: targets.length };
}

/** JSON text as a loose object, or undefined when it is not JSON. */
function parsedOrUndefined(text: string): Record<string, any> | undefined {
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return undefined;
  }
}
