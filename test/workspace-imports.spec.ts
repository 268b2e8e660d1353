import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { preProcessFile } from 'typescript';

/**
 * Code reaches another workspace only through its package name (`@gateway/events`,
 * `@gateway/events/testing`): a relative path into another workspace, or into a package's `src/`,
 * bypasses its `exports` and breaks silently when that workspace moves or renames a file.
 */
const ROOT = resolve(__dirname, '..');

/** Workspace folders, from the root package.json's globs (`packages/*` and plain names). */
function workspaceRoots(): string[] {
  const globs: string[] = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces;
  return globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [join(ROOT, glob)];
    const parent = join(ROOT, glob.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name));
  });
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The imports of one file (TypeScript's own pre-parser: static, dynamic and require) that cross into another workspace by path. */
function strayImports(path: string, source: string, roots: string[]): string[] {
  const owner = (file: string) => roots.find((root) => file === root || file.startsWith(root + sep));
  return preProcessFile(source, true, true)
    .importedFiles.map(({ fileName }) => fileName)
    .filter((specifier) => {
      if (/^@gateway\/[^/]+\/src(\/|$)/.test(specifier)) return true;
      if (!specifier.startsWith('.')) return false;
      const target = owner(resolve(dirname(path), specifier));
      return target !== undefined && target !== owner(path);
    })
    .map((specifier) => `${relative(ROOT, path)}: ${specifier}`);
}

describe('imports between workspaces', () => {
  const roots = workspaceRoots();
  const files = [...roots, join(ROOT, 'test'), join(ROOT, 'bench'), join(ROOT, 'scripts')]
    .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    .flatMap(tsFiles);

  it('covers the tests of every workspace and of test/', () => {
    expect(roots).toContain(join(ROOT, 'packages', 'events'));
    expect(files).toContain(join(ROOT, 'test', 'support', 'platform.ts'));
    expect(files).toContain(join(ROOT, 'rest-compat', 'src', 'layer.spec.ts'));
  });

  it('go through package names (`@gateway/<name>/testing`), never a path into another workspace or its src/', () => {
    expect(files.flatMap((file) => strayImports(file, readFileSync(file, 'utf8'), roots))).toEqual([]);
  });

  it('a test reaching into another workspace is caught', () => {
    const source = [
      "import { call } from '../../rest-compat/src/spec-support';",
      "import { testBus } from '@gateway/events/src/testing';",
      "const lazy = () => import('../../packages/db/testing');",
      "import { seed } from './support/seed';",
      "import { testAmqpUrl } from '@gateway/events/testing';",
    ].join('\n');
    expect(strayImports(join(ROOT, 'test', 'rest', 'probe.e2e.ts'), source, roots)).toEqual([
      'test/rest/probe.e2e.ts: ../../rest-compat/src/spec-support',
      'test/rest/probe.e2e.ts: @gateway/events/src/testing',
      'test/rest/probe.e2e.ts: ../../packages/db/testing',
    ]);
  });
});
