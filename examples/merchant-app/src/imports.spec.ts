import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { preProcessFile } from 'typescript';

/**
 * An example is what a merchant writes with the SDK alone: its code imports Node's built-ins,
 * its own files and @gateway/sdk, nothing else (depcheck forbids the services; this, npm packages).
 */
describe('examples import only @gateway/sdk', () => {
  const examples = join(__dirname, '..', '..');
  const sources = readdirSync(examples).flatMap((example) =>
    readdirSync(join(examples, example, 'src'))
      .filter((file) => file.endsWith('.ts') && !/\.(spec|e2e)\.ts$/.test(file))
      .map((file) => join(examples, example, 'src', file)),
  );

  it('covers this example', () => expect(sources).toContain(join(__dirname, 'app.ts')));

  it.each(sources)('%s', (file) => {
    const imports = preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map(
      ({ fileName }) => fileName,
    );
    const allowed = (name: string) =>
      name === '@gateway/sdk' || name.startsWith('./') || builtinModules.includes(name.replace(/^node:/, ''));
    expect(imports.filter((name) => !allowed(name))).toEqual([]);
  });
});
