import { jsonAnswer, resultOf, withHeaders } from './graphql-exchange';

/** A value whose JSON text counts how often it is written. */
function counted() {
  const written = { times: 0 };
  const json = { data: { alias: { handle: 'shop', toJSON: undefined as unknown } } };
  json.data.alias.toJSON = () => {
    written.times += 1;
    return { handle: 'shop' };
  };
  return { json, written };
}

describe('answers made in this process (jsonAnswer)', () => {
  it('writes the text only when it is read, once, with the suffix', () => {
    const { json, written } = counted();
    const answer = jsonAnswer(200, { 'content-type': 'application/json' }, json, '\n');
    expect(resultOf(answer)).toBe(json);
    expect(written.times).toBe(0);
    expect(answer.body).toBe('{"data":{"alias":{"handle":"shop"}}}\n');
    expect(answer.body).toBe('{"data":{"alias":{"handle":"shop"}}}\n');
    expect(written.times).toBe(1);
  });

  it('shares one hidden class: the text is a getter of the class, so a copy names body (a spread has no text)', () => {
    const answers = [jsonAnswer(200, {}, { data: { n: 1 } }), jsonAnswer(200, {}, { data: { n: 2 } })];
    expect(Object.getPrototypeOf(answers[0])).toBe(Object.getPrototypeOf(answers[1]));
    expect(Object.getOwnPropertyDescriptor(answers[0], 'body')).toBeUndefined();
    const copy = { status: answers[0]!.status, headers: answers[0]!.headers, body: answers[0]!.body };
    expect(copy.body).toBe('{"data":{"n":1}}');
  });

  it('withHeaders hands the value on without writing the text, and the text when it is read', () => {
    const { json, written } = counted();
    const answer = withHeaders(jsonAnswer(200, { a: '1' }, json), { b: '2' });
    expect(answer.headers).toEqual({ b: '2' });
    expect(resultOf(answer)).toBe(json);
    expect(written.times).toBe(0);
    expect(answer.body).toBe('{"data":{"alias":{"handle":"shop"}}}');
    expect(withHeaders({ status: 503, headers: {}, body: 'late' }, { c: '3' })).toEqual({
      status: 503,
      headers: { c: '3' },
      body: 'late',
    });
  });

  it('resultOf parses an answer that came as text (over HTTP, framed) and throws on one that is not JSON', () => {
    expect(resultOf({ status: 200, headers: {}, body: '{"data":{"n":2}}' })).toEqual({ data: { n: 2 } });
    expect(() => resultOf({ status: 502, headers: {}, body: '<html>' })).toThrow(SyntaxError);
  });
});
