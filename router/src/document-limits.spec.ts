import { buildSchema, parse, validate } from 'graphql';
import { documentLimits, MAX_ALIASES } from './document-limits';

const schema = buildSchema(`
  type Bank { handle: String, parent: Bank }
  type Query { bank: Bank }
`);
const errorsOf = (query: string, options: Parameters<typeof documentLimits>[0] = { production: false }) =>
  validate(schema, parse(query), documentLimits(options).validationRules).map((error) => error.message);
const aliases = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `b${i}: bank { handle }`).join(' ')} }`;

describe('the document limits stage', () => {
  it(`caps aliases at ${MAX_ALIASES} by default, or at the configured number`, () => {
    expect(errorsOf(aliases(MAX_ALIASES))).toEqual([]);
    expect(errorsOf(aliases(MAX_ALIASES + 1)).join()).toMatch(/alias/i);
    expect(errorsOf(aliases(3), { production: false, maxAliases: 2 }).join()).toMatch(/alias/i);
  });

  it('refuses documents deeper or wider than configured, and leaves a small one alone', () => {
    expect(errorsOf('{ bank { parent { parent { handle } } } }', { production: false, maxDepth: 2 }).join()).toMatch(
      /depth/i,
    );
    expect(errorsOf(aliases(6), { production: false, maxFields: 5 }).join()).toMatch(/field/i);
    expect(errorsOf('{ bank { parent { handle } } }', { production: true, maxDepth: 4, maxFields: 10 })).toEqual([]);
  });

  it('exempts the standard introspection query from depth outside production only', () => {
    const deepIntrospection = '{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }';
    expect(errorsOf(deepIntrospection, { production: false, maxDepth: 3 })).toEqual([]);
    expect(errorsOf(deepIntrospection, { production: true, maxDepth: 3 }).join()).toMatch(/depth/i);
  });

  it('caps directives per document', () => {
    expect(errorsOf(`{ bank { handle ${'@include(if: true) '.repeat(51)} } }`).join()).toMatch(/directive/i);
  });
});
