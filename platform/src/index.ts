export * from './config';
export * from './platform';
export * from './secrets';
export { SUBGRAPHS } from './subgraphs';
export { readCommittedSdl, sdlPath, REPO_ROOT } from './sdl';
export { startDemo, tryItBlock, type DemoTarget } from './demo/demo';
export { DemoSeedError } from './demo/demo-file';
export { createReadiness, type Readiness } from './readiness';
export type { DemoFile } from './demo/demo-data';
