export { startRestCompat, type RestCompatOptions, type RunningRestCompat } from './server';
export { BODY_LIMIT_BYTES } from './limits';
export { ROUTES } from './routes';
export { buildOpenApiDocument, type OpenApiDocument } from './openapi/document';
export type { RestRoute, Credential, HttpMethod } from './route';
