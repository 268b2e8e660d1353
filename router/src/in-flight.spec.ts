import { Agent } from 'undici';
import {
  GatewayError,
  jsonAnswer,
  resultOf,
  serveInProcess,
  type LocalRequest,
  type LocalResponse,
} from '@gateway/kernel';
import { sharingInFlight } from './in-flight';
import { subgraphCall, type SubgraphCall, type SubgraphCaller } from './subgraph-call';
import { SubgraphDataSource } from './subgraph-source';

const READ = 'query Resolve($alias: String) { resolveAlias(alias: $alias) { alias iban } }';
const WRITE = 'mutation Claim($alias: String!) { claimAlias(alias: $alias) { alias } }';
/** Callers as the router makes them: who they are, and a signature per subgraph and request. */
const callerOf = (who: string, requestId: string): SubgraphCaller => ({
  requestId,
  who,
  signedFor: (subgraph) => `${who}.${subgraph}.${requestId}`,
});
const alice = callerOf('alice', 'req_1');
const bob = callerOf('bob', 'req_2');

/** A subgraph call that records each call and answers when the test says so. */
function heldSubgraph() {
  const calls: Array<{ caller: SubgraphCaller; body: LocalRequest['body'] }> = [];
  const pending: Array<{ resolve: (answer: LocalResponse) => void; reject: (error: unknown) => void }> = [];
  const call: SubgraphCall = (caller, body) => {
    calls.push({ caller, body });
    return new Promise((resolve, reject) => pending.push({ resolve, reject }));
  };
  const answerAll = (body: string) => pending.splice(0).forEach((p) => p.resolve({ status: 200, headers: {}, body }));
  const failAll = (error: unknown) => pending.splice(0).forEach((p) => p.reject(error));
  return { calls, call, answerAll, failAll };
}

describe('identical reads in flight share one subgraph call', () => {
  it('N concurrent identical reads make one call; each waiter gets its own copy of the answer', async () => {
    const subgraph = heldSubgraph();
    let saved = 0;
    const call = sharingInFlight(subgraph.call, () => (saved += 1));
    const body = { query: READ, variables: { alias: 'shop' }, operationName: 'Resolve' };
    const waiting = Array.from({ length: 10 }, (_, i) =>
      call(callerOf('alice', `req_${i}`), { ...body, variables: { alias: 'shop' } }),
    );
    expect(subgraph.calls).toHaveLength(1);
    expect(subgraph.calls[0]!.caller.requestId).toBe('req_0'); // the first caller's call is the one made
    subgraph.answerAll('{"data":{"resolveAlias":{"alias":"shop","iban":"LY00"}}}');
    const answers = await Promise.all(waiting);
    expect(saved).toBe(9);
    for (const answer of answers) expect(answer).toEqual({ status: 200, headers: {}, body: answers[0]!.body });
    expect(new Set(answers).size).toBe(10);
    expect(new Set(answers.map((answer) => answer.headers)).size).toBe(10);
  });

  it("an answer made in process: its value stays the first caller's, the others get its text as it was answered", async () => {
    let answer!: (response: LocalResponse) => void;
    const call = sharingInFlight<SubgraphCaller>(
      () => new Promise((resolve) => (answer = resolve)),
      () => undefined,
    );
    const body = { query: READ, variables: { alias: 'shop' } };
    const json = { data: { resolveAlias: { alias: 'shop', iban: 'LY00' } } };
    // The first caller reacts first, as the router's forwarder does, and owns the value: it may
    // change it (the router's plan execution merges into what a fetch answered).
    const first = call(alice, body).then((mine) => {
      expect(resultOf(mine)).toBe(json);
      json.data.resolveAlias.iban = 'changed by the first caller';
      return mine;
    });
    const joiners = [call(alice, body), call(alice, body)];
    answer(jsonAnswer(200, {}, json));
    await first;
    for (const joined of await Promise.all(joiners)) {
      expect(joined.json).toBeUndefined();
      expect(resultOf(joined)).toEqual({ data: { resolveAlias: { alias: 'shop', iban: 'LY00' } } });
    }
  });

  it('different principals, variables, documents or operation names make separate calls', async () => {
    const subgraph = heldSubgraph();
    let saved = 0;
    const call = sharingInFlight(subgraph.call, () => (saved += 1));
    const waiting = [
      call(alice, { query: READ, variables: { alias: 'shop' } }),
      call(bob, { query: READ, variables: { alias: 'shop' } }),
      call(alice, { query: READ, variables: { alias: 'cafe' } }),
      call(alice, {
        query: `${READ} query Other { __typename }`,
        variables: { alias: 'shop' },
        operationName: 'Other',
      }),
      call(alice, {
        query: `${READ} query Other { __typename }`,
        variables: { alias: 'shop' },
        operationName: 'Resolve',
      }),
    ];
    expect(subgraph.calls).toHaveLength(5);
    subgraph.answerAll('{"data":null}');
    await Promise.all(waiting);
    expect(saved).toBe(0);
  });

  it('never shares a mutation, nor a document that does not parse', async () => {
    const subgraph = heldSubgraph();
    let saved = 0;
    const call = sharingInFlight(subgraph.call, () => (saved += 1));
    const writes = [1, 2, 3].map(() => call(alice, { query: WRITE, variables: { alias: 'shop' } }));
    // A document holding a query and a mutation: the one named runs.
    const mixed = `${READ} ${WRITE}`;
    const named = [1, 2].map(() => call(alice, { query: mixed, variables: { alias: 'shop' }, operationName: 'Claim' }));
    const broken = [1, 2].map(() => call(alice, { query: '{ resolveAlias(' }));
    expect(subgraph.calls).toHaveLength(7);
    subgraph.answerAll('{"data":null}');
    await Promise.all([...writes, ...named, ...broken]);
    expect(saved).toBe(0);
  });

  it('a failed call reaches every waiter, each with its own error', async () => {
    const subgraph = heldSubgraph();
    const call = sharingInFlight(subgraph.call, () => undefined);
    const waiting = [1, 2, 3].map(() => call(alice, { query: READ, variables: { alias: 'shop' } }));
    expect(subgraph.calls).toHaveLength(1);
    subgraph.failAll(new GatewayError('SERVICE_UNAVAILABLE', 'the identity service is unreachable'));
    const errors = await Promise.all(
      waiting.map((waiter) =>
        waiter.then(
          () => null,
          (error: unknown) => error,
        ),
      ),
    );
    for (const error of errors) {
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.any(String) });
      expect((error as GatewayError).extensions.code).toBe('SERVICE_UNAVAILABLE');
    }
    expect(new Set(errors).size).toBe(3);
    expect(new Set(errors.map((error) => (error as GatewayError).extensions)).size).toBe(3);
  });

  it('a read that comes after the call settled makes a new call (nothing is cached)', async () => {
    const subgraph = heldSubgraph();
    let saved = 0;
    const call = sharingInFlight(subgraph.call, () => (saved += 1));
    const first = call(alice, { query: READ, variables: { alias: 'shop' } });
    subgraph.answerAll('{"data":{"n":1}}');
    await first;
    const late = call(alice, { query: READ, variables: { alias: 'shop' } });
    expect(subgraph.calls).toHaveLength(2);
    subgraph.answerAll('{"data":{"n":2}}');
    expect((await late).body).toBe('{"data":{"n":2}}');
    // Also after a failure.
    const failing = call(alice, { query: READ, variables: { alias: 'x' } });
    subgraph.failAll(new Error('down'));
    await expect(failing).rejects.toThrow('down');
    const again = call(alice, { query: READ, variables: { alias: 'x' } });
    expect(subgraph.calls).toHaveLength(4);
    subgraph.answerAll('{"data":null}');
    await again;
    expect(saved).toBe(0);
  });

  it("the router's subgraph call and the gateway's data source share with a counter, and not without one", async () => {
    const url = 'http://127.0.0.1:7991/graphql';
    let received = 0;
    const stop = serveInProcess(
      url,
      async () => {
        received += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { status: 200, headers: {}, body: '{"data":{"resolveAlias":null}}' };
      },
      { enabled: true },
    );
    const agent = new Agent();
    try {
      const counted: string[] = [];
      const sharing = subgraphCall('identity', url, 1000, agent, (subgraph) => void counted.push(subgraph));
      await Promise.all(Array.from({ length: 5 }, () => sharing(alice, { query: READ, variables: { alias: 'a' } })));
      expect(received).toBe(1);
      expect(counted).toEqual(['identity', 'identity', 'identity', 'identity']);

      const plain = subgraphCall('identity', url, 1000, agent);
      await Promise.all(Array.from({ length: 5 }, () => plain(alice, { query: READ, variables: { alias: 'a' } })));
      expect(received).toBe(6);

      // The gateway's data source (the cross-subgraph path): the plan's identical fetches share too, each its own object.
      const source = new SubgraphDataSource('identity', url, 1000, agent, (subgraph) => void counted.push(subgraph));
      const fetched = await Promise.all(
        Array.from({ length: 3 }, () =>
          source.process({
            request: { query: READ, variables: { alias: 'a' } },
            context: { ...alice },
          } as unknown as Parameters<SubgraphDataSource['process']>[0]),
        ),
      );
      expect(received).toBe(7);
      expect(counted).toHaveLength(6);
      expect(fetched[0]).toEqual({ data: { resolveAlias: null } });
      expect(fetched[0]).not.toBe(fetched[1]);
    } finally {
      stop();
      await agent.close();
    }
  });
});
