export { run, main, HELP } from './main';
export type { CliIo } from './io';
export { TRIGGERS } from './commands/trigger';
