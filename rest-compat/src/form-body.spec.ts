import { GatewayError } from '@gateway/kernel';
import { parseFormBody } from './form-body';

describe('parseFormBody', () => {
  it('decodes names and values (plus and percent escapes)', () => {
    expect(
      parseFormBody('grant_type=authorization_code&redirect_uri=https%3A%2F%2Ftpp.example%2Fcb%3Fa%3D1&state=a+b'),
    ).toEqual({
      grant_type: 'authorization_code',
      redirect_uri: 'https://tpp.example/cb?a=1',
      state: 'a b',
    });
    expect(parseFormBody('')).toEqual({});
  });

  it('refuses a name sent twice (RFC 6749 3.1)', () => {
    expect(() => parseFormBody('code=a&code=b')).toThrow(
      new GatewayError('VALIDATION_ERROR', 'code: sent more than once'),
    );
  });

  it('keeps __proto__ an ordinary field name', () => {
    const fields = parseFormBody('__proto__=x');
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(fields['__proto__']).toBe('x');
  });
});
