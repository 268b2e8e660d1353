export * from './dpop-nonce';
export * from './dpop-proof';
export * from './seen-proofs';
