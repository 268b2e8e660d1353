export * from './src/testing/support';
