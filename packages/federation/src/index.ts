import 'reflect-metadata';

export * from './schema';
export * from './context';
export * from './errors';
export * from './server';
export * from './local-answer';
export * from './standalone';
export * from './sdl';
export * from './service-client';
export * from './page-info';
export * from './directory';
export * from './bank-changes';
export * from './otp-guard';
export * from './payer-check';
export * from './bank-reference';
