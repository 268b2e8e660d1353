import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * `npm run build -w @gateway/sdk` (also `npm run build` at the root): the package as published,
 * in dist/ (or `-- --out <dir>`): CommonJS with declarations, the generated types, this README and
 * a package.json pointing at the built files. In the monorepo the package is used from its
 * TypeScript sources (package.json main: src/index.ts); outside it, publish the built folder:
 * `npm publish packages/sdk/dist`.
 */
const at = process.argv.indexOf('--out');
const out = resolve(at > 0 ? process.argv[at + 1]! : join(__dirname, 'dist'));
rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', out], {
  cwd: __dirname,
  stdio: 'inherit',
});
// tsc does not copy declaration files it was given: the generated types go along by hand.
mkdirSync(join(out, 'generated'), { recursive: true });
copyFileSync(join(__dirname, 'src', 'generated', 'schema.d.ts'), join(out, 'generated', 'schema.d.ts'));
copyFileSync(join(__dirname, 'README.md'), join(out, 'README.md'));

const manifest = JSON.parse(readFileSync(join(__dirname, 'package.json'), 'utf8'));
const {
  scripts: _scripts,
  devDependencies: _dev,
  main: _main,
  types: _types,
  exports: _exports,
  typesVersions: _typesVersions,
  ...kept
} = manifest;
writeFileSync(
  join(out, 'package.json'),
  `${JSON.stringify(
    {
      ...kept,
      main: 'index.js',
      types: 'index.d.ts',
      exports: {
        '.': { types: './index.d.ts', default: './index.js' },
        './money': { types: './money.d.ts', default: './money.js' },
      },
    },
    null,
    2,
  )}\n`,
);
process.stdout.write(`built ${manifest.name}@${manifest.version} in ${out}\n`);
