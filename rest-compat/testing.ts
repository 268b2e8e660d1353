export * from './src/spec-support';
