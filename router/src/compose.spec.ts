import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeSupergraph, composeSupergraphByName, placeholderUrl } from './compose';

const sdl = (field: string, type = 'String') => `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  type Query { ${field}: ${type} }
`;
const subgraphs = [
  { name: 'one', sdl: sdl('a') },
  { name: 'two', sdl: sdl('b') },
];

describe('composeSupergraphByName', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'supergraph-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('composes with each subgraph at its placeholder URL, whatever its running URL', () => {
    const byName = composeSupergraphByName(subgraphs.map((s) => ({ ...s, url: 'http://127.0.0.1:1234/graphql' })));
    expect(byName).toBe(composeSupergraph(subgraphs.map((s) => ({ ...s, url: placeholderUrl(s.name) }))));
    expect(byName).toContain(placeholderUrl('one'));
    expect(byName).not.toContain('127.0.0.1');
  });

  it('keeps a composition and reads it back for the same SDLs, not for others', () => {
    const first = composeSupergraphByName(subgraphs, dir);
    const [kept] = readdirSync(dir);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(readFileSync(join(dir, kept!), 'utf8')).toBe(first);
    // What is read back is the kept file (marked here), not a new composition.
    writeFileSync(join(dir, kept!), `${first}\n# kept`);
    expect(composeSupergraphByName(subgraphs, dir)).toBe(`${first}\n# kept`);

    const changed = composeSupergraphByName([subgraphs[0]!, { name: 'two', sdl: sdl('c') }], dir);
    expect(changed).toContain('c: String');
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it('composes when the cache cannot be written, and keeps no failed composition', () => {
    const unwritable = join(dir, 'file');
    writeFileSync(unwritable, '');
    expect(composeSupergraphByName(subgraphs, join(unwritable, 'below'))).toContain('join__Graph');

    const clash = [
      { name: 'one', sdl: sdl('a') },
      { name: 'two', sdl: sdl('a', 'Int') },
    ];
    expect(() => composeSupergraphByName(clash, dir)).toThrow(/supergraph composition failed/);
    expect(readdirSync(dir).filter((file) => !file.startsWith('file'))).toEqual([]);
  });
});
