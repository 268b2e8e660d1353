export * from './src/testing/minimal-core';
