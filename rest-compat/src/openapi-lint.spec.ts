import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from './openapi/document';
import { ROUTES } from './routes';

const ROOT = join(__dirname, '..', '..');

/**
 * Redocly's recommended rules over the document /openapi.json serves (config: redocly.yaml):
 * 0 errors and 0 warnings. Among them: every tag described, a licence, servers, examples that
 * validate against their schemas (no-invalid-media-type-examples), 4xx answers on every operation.
 */
describe('OpenAPI document lint (redocly)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes the recommended ruleset with no error and no warning', async () => {
    const file = join(dir, 'openapi.json');
    // As a deployment serves it: with PUBLIC_BASE_URL. (`npm start` names its localhost address,
    // the truth there, which no-server-example.com rightly flags for a published document.)
    writeFileSync(file, JSON.stringify(buildOpenApiDocument(ROUTES, 'https://pay.gateway.ly')));
    const run = await promisify(execFile)(
      join(ROOT, 'node_modules', '.bin', 'redocly'),
      ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
      {
        cwd: ROOT,
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((failure: { stdout?: string; stderr?: string }) => failure);
    const report = JSON.parse(run.stdout ?? '{}') as {
      totals?: { errors: number; warnings: number };
      problems?: Array<{ ruleId: string; message: string; location?: Array<{ pointer?: string }> }>;
    };
    const problems = (report.problems ?? []).map(
      (problem) => `${problem.ruleId}: ${problem.message} at ${problem.location?.[0]?.pointer ?? '?'}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);
});
