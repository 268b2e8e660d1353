/**
 * Import rules checked by `npm run depcheck` (part of `npm test`): see CONVENTIONS.md "Layout" and
 * "Data". Run over the services' and packages' sources only; specs are left out on purpose (a
 * spec may reach into what it tests).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Two modules that import each other (directly or round a loop) cannot be understood, loaded or moved one at a time.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      scope: 'folder',
      severity: 'error',
      comment:
        'No import cycle between feature folders (e.g. engine/ -> session/ -> engine/): a payment walks through each folder once. ' +
        'Generic helpers (schedulers, routing clients) get a folder of their own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'subgraph-not-to-other-subgraph',
      severity: 'error',
      comment: 'A subgraph never imports another subgraph: it learns about others through federation or events.',
      from: { path: '^subgraphs/([^/]+)/' },
      to: { path: '^subgraphs/', pathNot: '^subgraphs/$1/' },
    },
    {
      name: 'packages-not-to-apps',
      severity: 'error',
      comment:
        'Libraries under packages/ never import the applications built on them (subgraphs, router, rest-compat, the platform launcher).',
      from: { path: '^packages/' },
      to: { path: '^(subgraphs|router|rest-compat|platform)/' },
    },
    {
      name: 'sdk-stands-alone',
      severity: 'error',
      comment:
        'packages/sdk is published on its own for merchants: it reaches the platform over HTTP only, never by importing a service or another workspace package (its types come from the OpenAPI document, generated).',
      from: { path: '^packages/sdk/' },
      to: { path: '^(subgraphs|router|rest-compat|platform|packages/(?!sdk/))' },
    },
    {
      name: 'examples-use-the-sdk-only',
      severity: 'error',
      comment:
        'examples/ are what a merchant writes: they reach the platform through @gateway/sdk over HTTP, never by importing a service or another workspace package.',
      from: { path: '^examples/' },
      to: { path: '^(subgraphs|router|rest-compat|platform|packages/(?!sdk/))' },
    },
    {
      name: 'cli-uses-the-sdk-only',
      severity: 'error',
      comment:
        'packages/cli is a merchant tool: as in the code of a merchant, it reaches the platform through @gateway/sdk over HTTP, never by importing a service or another workspace package.',
      from: { path: '^packages/cli/' },
      to: { path: '^(subgraphs|router|rest-compat|platform|packages/(?!(cli|sdk)/))' },
    },
  ],
  options: {
    // Workspace packages resolve through their node_modules symlinks to packages/*/src.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '\\.spec\\.ts$', '\\.e2e\\.ts$'] },
    includeOnly:
      '^(subgraphs/[^/]+/src|router/src|rest-compat/src|platform/src|packages/[^/]+/src|examples/[^/]+/src)/',
    // Type-only imports count: they tie modules together as much as value imports do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
    // Folder-level rules (no-folder-cycle) need the folder metrics.
    metrics: true,
  },
};
