import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The dashboard's script and stylesheet, each named by a hash of its content. */
export interface DashboardAssets {
  files: Map<string, { body: string; type: string }>;
  script: string;
  stylesheet: string;
}

const ENTRY = join(__dirname, 'client', 'main.tsx');

/**
 * Bundles the dashboard (Preact and graphql-ws from node_modules, the client under ./client) with
 * esbuild, in memory, once per process: nothing is loaded from elsewhere at run time, and no build
 * output is kept in the repository. `entry`: another page built the same way (the operator console).
 */
export async function buildDashboardAssets(entry: string = ENTRY): Promise<DashboardAssets> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    outdir: join(__dirname, 'out'),
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const files = new Map<string, { body: string; type: string }>();
  let script = '';
  let stylesheet = '';
  for (const output of result.outputFiles) {
    const hash = createHash('sha256').update(output.contents).digest('hex').slice(0, 16);
    if (output.path.endsWith('.js')) {
      script = `app-${hash}.js`;
      files.set(script, { body: output.text, type: 'text/javascript; charset=utf-8' });
    } else if (output.path.endsWith('.css')) {
      stylesheet = `app-${hash}.css`;
      files.set(stylesheet, { body: output.text, type: 'text/css; charset=utf-8' });
    }
  }
  if (!script || !stylesheet) throw new Error('the dashboard bundle lacks its script or stylesheet');
  return { files, script, stylesheet };
}
