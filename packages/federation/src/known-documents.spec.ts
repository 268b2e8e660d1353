import { buildSchema } from 'graphql';
import { KnownDocuments } from './known-documents';

const schema = buildSchema('type Query { echo(n: Int!): Int! name: String }');

describe('known documents (the lean path takes only these)', () => {
  it('keeps a document that parses and validates, and no other', () => {
    const documents = new KnownDocuments(schema);
    expect(documents.get('{ echo(n: 1) }')).toBeDefined();
    expect(documents.get('{ echo(')).toBeUndefined();
    expect(documents.get('{ nope }')).toBeUndefined();
    expect(documents.get('{ echo }')).toBeUndefined();
    expect(documents.size).toBe(1);
  });

  it('never keeps introspection, which Apollo refuses in production', () => {
    const documents = new KnownDocuments(schema);
    expect(documents.get('{ __schema { queryType { name } } }')).toBeUndefined();
    expect(documents.get('query { ...F } fragment F on Query { __type(name: "Query") { name } }')).toBeUndefined();
    expect(documents.get('{ __typename name }')).toBeDefined();
  });

  it('returns the same document for the same text, and forgets the least recently used first', () => {
    const documents = new KnownDocuments(schema, { entries: 2, characters: 1000 });
    const first = documents.get('{ echo(n: 1) }');
    documents.get('{ echo(n: 2) }');
    expect(documents.get('{ echo(n: 1) }')).toBe(first);
    documents.get('{ echo(n: 3) }'); // forgets n: 2, used longest ago
    expect(documents.size).toBe(2);
    expect(documents.get('{ echo(n: 1) }')).toBe(first);
    expect(documents.get('{ echo(n: 2) }')).not.toBe(undefined);
    expect(documents.size).toBe(2);
  });

  it('keeps no more query text than its budget, and no document longer than it', () => {
    const documents = new KnownDocuments(schema, { entries: 100, characters: 40 });
    const padded = (n: number) => `{ echo(n: ${n}) ${' '.repeat(5)}}`; // 20 characters
    for (let n = 0; n < 5; n += 1) expect(documents.get(padded(n))).toBeDefined();
    expect(documents.size).toBe(2);
    expect(documents.get(`{ echo(n: 1) ${' '.repeat(40)}}`)).toBeUndefined();
  });
});
