export { start, IDENTITY_SCHEMA } from './service';
export { buildIdentitySchema } from './schema';
