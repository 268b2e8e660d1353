export { routerEnvSchema } from './config';
export { startRouter, type RouterOptions, type RunningRouter } from './server';
export { composeSupergraph, type SubgraphEndpoint } from './compose';
export { DEFAULT_LIMITS, type LimitOverrides } from './rate-limit';
