export * from './credential.entity';
export * from './vault';
export * from './schema';
export * from './dpop';
