import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { buildOpenApiDocument, ROUTES } from '@gateway/rest-compat';
import { routesModule, SDK_DOCUMENT_SERVER, type OpenApiPaths } from './support/sdk-routes';

const argument = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};

/**
 * `npm run sdk:generate`: writes the REST API's OpenAPI document (built from rest-compat's route
 * table, as /openapi.json serves it) to packages/sdk/openapi.json, then from it the SDK's types
 * (openapi-typescript) and route tables into packages/sdk/src/generated/.
 * `-- --from <url>` reads a running gateway's /openapi.json instead; `-- --package <dir>` writes
 * elsewhere (the drift test, test/sdk/generated.spec.ts, generates into a temporary folder).
 */
void (async () => {
  const from = argument('--from');
  const target = resolve(argument('--package') ?? join(__dirname, '..', 'packages', 'sdk'));
  const document = (
    from ? await (await fetch(from)).json() : buildOpenApiDocument(ROUTES, SDK_DOCUMENT_SERVER)
  ) as OpenAPI3 & OpenApiPaths;
  const generated = join(target, 'src', 'generated');
  mkdirSync(generated, { recursive: true });
  writeFileSync(join(target, 'openapi.json'), `${JSON.stringify(document, null, 2)}\n`);
  writeFileSync(join(generated, 'schema.d.ts'), `${COMMENT_HEADER}${astToString(await openapiTS(document))}`);
  writeFileSync(join(generated, 'routes.ts'), routesModule(document));
  console.log(`wrote ${join(target, 'openapi.json')} and ${generated}/{schema.d.ts,routes.ts}`);
})();
