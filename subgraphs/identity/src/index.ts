export { start, IDENTITY_SCHEMA } from './service';
export { buildIdentitySchema } from './schema';
export { migrations as IDENTITY_MIGRATIONS } from './migrations';
