import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument, ROUTES } from '@gateway/rest-compat';
import { idempotentPosts, listRoutes, SDK_DOCUMENT_SERVER } from '../../scripts/support/sdk-routes';

const ROOT = join(__dirname, '..', '..');
const COMMITTED = join(ROOT, 'packages', 'sdk', 'src', 'generated');

/**
 * The SDK's committed types and route tables are what openapi-typescript makes of the document
 * /openapi.json serves today: a route, field or error code changed in rest-compat without
 * `npm run sdk:generate` fails here, as a GraphQL change without `npm run schema:print` does.
 * The generator runs as `npm run sdk:generate` does, in a process of its own (openapi-typescript
 * loads ES modules that jest's module system does not), into a temporary folder.
 */
describe('packages/sdk generated sources', () => {
  const document = buildOpenApiDocument(ROUTES, SDK_DOCUMENT_SERVER);
  let fresh: string;
  beforeAll(async () => {
    fresh = mkdtempSync(join(tmpdir(), 'sdk-generate-'));
    await promisify(execFile)(
      process.execPath,
      ['-r', './scripts/register.js', 'scripts/sdk-generate.ts', '--package', fresh],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
  }, 120_000);
  afterAll(() => rmSync(fresh, { recursive: true, force: true }));

  it.each(['schema.d.ts', 'routes.ts'])(
    '%s matches the current OpenAPI document (run `npm run sdk:generate`)',
    (file) => {
      const generated = readFileSync(join(fresh, 'src', 'generated', file), 'utf8');
      expect(generated.length).toBeGreaterThan(500);
      expect(readFileSync(join(COMMITTED, file), 'utf8')).toBe(generated);
    },
  );

  it('generates from the document the route table serves', () => {
    expect(JSON.parse(readFileSync(join(fresh, 'openapi.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('names as idempotent exactly the route table’s idempotent POSTs, and finds every list route', () => {
    expect(idempotentPosts(document)).toEqual(
      ROUTES.filter((route) => route.idempotent && route.method === 'POST')
        .map((route) => route.path)
        .sort(),
    );
    expect(idempotentPosts(document)).toEqual(
      expect.arrayContaining(['/payments/sessions', '/payments/sessions/{session_id}/refunds', '/recurring/mandates']),
    );
    const paged = ROUTES.filter((route) => route.method === 'GET' && route.query?.shape?.cursor).map((r) => r.path);
    expect(Object.keys(listRoutes(document)).sort()).toEqual(paged.sort());
  });
});
