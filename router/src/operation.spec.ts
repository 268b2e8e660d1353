import { carriesNul, inspectOperation } from './operation';

const DOCUMENT = `
  query Resolve($a: String, $b: String) { first: resolveAlias(alias: $a) { iban } ...More }
  query Other { banks { handle } }
  fragment More on Query { second: resolveAlias(alias: $b) { iban } }
`;

describe('inspectOperation', () => {
  it("walks a document's operation once and reads each request's arguments from its own variables", () => {
    const one = inspectOperation({ query: DOCUMENT, operationName: 'Resolve', variables: { a: 'ana', b: 'bob' } })!;
    const two = inspectOperation({ query: DOCUMENT, operationName: 'Resolve', variables: { a: 'cat' } })!;
    expect(one).toMatchObject({ type: 'query', name: 'Resolve', rootFields: ['resolveAlias', 'resolveAlias'] });
    expect(one.fields.map((field) => field.args)).toEqual([{ alias: 'ana' }, { alias: 'bob' }]);
    expect(two.fields.map((field) => field.args)).toEqual([{ alias: 'cat' }, { alias: undefined }]);
    // The walk of the document (its root selections through fragments) is shared by its requests.
    expect(two.selections).toBe(one.selections);
    expect(two.fragments).toBe(one.fragments);
  });

  it('picks the operation by name, the first without one, and none for a name the document lacks', () => {
    expect(inspectOperation({ query: DOCUMENT, operationName: 'Other' })).toMatchObject({
      name: 'Other',
      rootFields: ['banks'],
    });
    expect(inspectOperation({ query: DOCUMENT })).toMatchObject({ name: 'Resolve' });
    expect(inspectOperation({ query: DOCUMENT, operationName: 'Missing' })).toBeNull();
    expect(inspectOperation({ query: DOCUMENT, operationName: '' })).toBeNull();
    expect(inspectOperation({ query: '{ broken' })).toBeNull();
  });
});

describe('carriesNul', () => {
  it('finds NUL in the document, in variables parsed or as JSON text, in keys and deep in lists', () => {
    expect(carriesNul({ query: '{ banks(handle: "a\u0000") { handle } }' })).toBe(true);
    expect(carriesNul({ query: '{ banks(handle: "a\\u0000") { handle } }' })).toBe(true);
    expect(carriesNul({ query: 'query($a: String) { a(x: $a) }', variables: { a: 'x\u0000' } })).toBe(true);
    expect(carriesNul({ query: '{ a }', variables: '{"a":"x\\u0000"}' })).toBe(true);
    expect(carriesNul({ query: '{ a }', variables: { ['k\u0000']: 1 } })).toBe(true);
    expect(carriesNul({ query: '{ a }', variables: { a: [[{ b: ['', 'c\u0000'] }]] } })).toBe(true);
  });

  it('lets the six characters \\u0000 through: a description may hold them', () => {
    // The variable's value is backslash, u, 0, 0, 0, 0 (JSON writes its backslash escaped).
    expect(carriesNul({ query: 'query($a: String) { a(x: $a) }', variables: { a: 'see \\u0000' } })).toBe(false);
    expect(carriesNul({ query: '{ a }', variables: '{"a":"see \\\\u0000"}' })).toBe(false);
    expect(carriesNul({ query: '{ banks(handle: "a\\\\u0000") { handle } }' })).toBe(false);
    expect(carriesNul({ query: '{ a }', variables: { a: Array.from({ length: 200_000 }, () => 'x') } })).toBe(false);
  });
});
