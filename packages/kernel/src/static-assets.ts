import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Browser files of installed npm packages (GraphiQL, the API reference), served by our own
 * servers: no CDN, so the pages work offline. Every URL carries the package version (or a hash
 * of our own script), so a file never changes under its URL and may be cached for a year.
 */

/**
 * A package's file, or text of our own. `patch`: a change to the package's file, applied on first
 * use (named, so the URL names it too and a cached unpatched copy is never taken for it).
 */
export type StaticAssetSource =
  { package: string; file: string; patch?: { name: string; apply(source: string): string } } | { text: string };

export interface StaticAsset {
  /** The versioned URL path, e.g. /graphiql/assets/graphiql-4.1.2/graphiql.min.js. */
  url: string;
  type: string;
  /** Read on first use and kept: the files are a few MiB and only pages in dev mode ask for them. */
  body(): Buffer;
}

/** What every asset answer carries: cached for a year (the URL is versioned), and only this origin may load anything. */
export const STATIC_ASSET_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'public, max-age=31536000, immutable',
  'content-security-policy': "default-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
};

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/** An installed package's folder, looked up from `fromDir` as require would (its exports need not list package.json). */
function packageDir(name: string, fromDir: string): string {
  const lookup = createRequire(join(fromDir, 'noop.js'));
  for (const dir of lookup.resolve.paths(name) ?? [])
    if (existsSync(join(dir, name, 'package.json'))) return join(dir, name);
  throw new Error(`package ${name} is not installed (looked up from ${fromDir})`);
}

/**
 * Assets under `prefix`, by name. `fromDir` is the caller's __dirname, where its own
 * dependencies resolve from.
 */
export function staticAssets(
  prefix: string,
  fromDir: string,
  sources: Record<string, StaticAssetSource>,
): Record<string, StaticAsset> {
  return Object.fromEntries(
    Object.entries(sources).map(([name, source]) => {
      const type = TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream';
      if ('text' in source) {
        const body = Buffer.from(source.text);
        const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
        return [name, { url: `${prefix}/${version}/${name}`, type, body: () => body }];
      }
      const dir = packageDir(source.package, fromDir);
      const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
      let body: Buffer | undefined;
      const folder = `${source.package.replace(/^@/, '').replace('/', '-')}-${version}${source.patch ? `-${source.patch.name}` : ''}`;
      const read = () => {
        const file = readFileSync(join(dir, source.file));
        return source.patch ? Buffer.from(source.patch.apply(file.toString('utf8'))) : file;
      };
      return [name, { url: `${prefix}/${folder}/${name}`, type, body: () => (body ??= read()) }];
    }),
  );
}

/** The asset at a request's path, if it is one of them. */
export function findStaticAsset(assets: Record<string, StaticAsset>, urlPath: string): StaticAsset | undefined {
  return Object.values(assets).find((asset) => asset.url === urlPath);
}
