import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gql, graphqlTestClient, type GraphQLTestClient } from './support/graphql';

/**
 * The testkit's GraphQL calls, against a stand-in endpoint with fixed answers: a test that
 * reads `data` must never pass over an error it did not expect.
 */
describe('testkit GraphQL client', () => {
  let server: Server;
  let client: GraphQLTestClient;
  const received: Array<{ headers: Record<string, unknown>; body: any }> = [];
  const ERROR = { message: 'no such merchant', path: ['merchant'], extensions: { code: 'MERCHANT_NOT_FOUND' } };

  beforeAll(async () => {
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => (text += chunk));
      request.on('end', () => {
        const body = JSON.parse(text);
        received.push({ headers: request.headers, body });
        const answer =
          body.variables.id === 'mer_known'
            ? { data: { merchant: { name: 'Shop' } } }
            : { data: null, errors: [ERROR] };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = graphqlTestClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`);
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const MERCHANT = gql<{ merchant: { name: string } }, { id: string }>(
    `query Merchant($id: ID!) { merchant(id: $id) { name } }`,
  );

  it('execute returns data, sending the document, variables and headers', async () => {
    expect(await client.execute(MERCHANT, { id: 'mer_known' }, { authorization: 'Bearer mk_test_x' })).toEqual({
      merchant: { name: 'Shop' },
    });
    expect(received.at(-1)!.body).toEqual({ query: MERCHANT, variables: { id: 'mer_known' } });
    expect(received.at(-1)!.headers.authorization).toBe('Bearer mk_test_x');
  });

  it('execute fails on an unexpected error, naming the operation and listing the errors', async () => {
    const failure = client.execute(MERCHANT, { id: 'mer_unknown' });
    await expect(failure).rejects.toThrow(/unexpected GraphQL errors \(HTTP 200\) from query Merchant/);
    await expect(client.execute(MERCHANT, { id: 'mer_unknown' })).rejects.toThrow(
      /no such merchant[\s\S]*MERCHANT_NOT_FOUND/,
    );
  });

  it('executeExpectingErrors returns the errors, and fails when the operation succeeds', async () => {
    expect(await client.executeExpectingErrors(MERCHANT, { id: 'mer_unknown' })).toEqual({
      status: 200,
      data: null,
      errors: [ERROR],
    });
    await expect(client.executeExpectingErrors(MERCHANT, { id: 'mer_known' })).rejects.toThrow(
      /expected GraphQL errors from query Merchant/,
    );
  });
});
