import { GatewayError } from '@gateway/kernel';

/**
 * An application/x-www-form-urlencoded body as an object of strings. A name sent twice is
 * refused (RFC 6749 3.1: parameters must not be included more than once), so a repeated
 * `code_verifier` or `redirect_uri` can never be read one way here and another way elsewhere.
 */
export function parseFormBody(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(fields, name)) throw new GatewayError('VALIDATION_ERROR', `${name}: sent more than once`);
    // defineProperty: `__proto__=…` becomes a field (refused later as unknown), not the prototype.
    Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return fields;
}
