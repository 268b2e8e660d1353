import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { undocumentedElements } from './descriptions';

const SUBGRAPHS_DIR = join(__dirname, '..', '..', '..', 'subgraphs');

describe('undocumentedElements', () => {
  it('names every type, field, argument, input field and enum value without a description', () => {
    const sdl = `
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
      directive @custom on FIELD_DEFINITION
      type Query { "Described." shop(id: ID!, "Described." mode: String): Shop! bare: Int }
      type Shop @key(fields: "id") { "Described." id: ID! name: String! }
      "Described." enum Mode { "Described." TEST LIVE }
      input ShopInput { name: String! }
      "Described." scalar Money
      scalar Untold
      scalar _Any
      scalar link__Import
    `;
    expect(undocumentedElements(sdl).sort()).toEqual(
      [
        'Mode.LIVE',
        'Query.bare',
        'Query.shop(id)',
        'Shop',
        'Shop.name',
        'ShopInput',
        'ShopInput.name',
        'Untold',
      ].sort(),
    );
  });
});

describe("every subgraph's committed SDL", () => {
  const names = readdirSync(SUBGRAPHS_DIR).filter((name) => existsSync(join(SUBGRAPHS_DIR, name, 'schema.graphql')));

  it('covers the four subgraphs', () => {
    expect(names.sort()).toEqual(expect.arrayContaining(['banks', 'identity', 'open-banking', 'payments']));
  });

  it.each(names)('%s/schema.graphql describes every public type, field, argument and enum value', (name) => {
    const missing = undocumentedElements(readFileSync(join(SUBGRAPHS_DIR, name, 'schema.graphql'), 'utf8'));
    expect(missing).toEqual([]);
  });
});
