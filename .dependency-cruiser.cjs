/**
 * The import rules of src/ (run by `npm run check`, see package.json): no cycles, and the stages of
 * one email's life import only downstream, never back up. The stages, in the order a mail meets them:
 *   emails/api (request side: /v1/send) → emails/queue → emails/delivery (claims, renders with
 *   emails/render, hands off, records outcomes) → emails/tracking (opens, clicks, unsubscribes).
 * emails/*.ts at the folder's root is what the stages share (job contract, repository, eligibility,
 * event data, VERP) and imports no stage (a job definition's handler is a lazy dynamic import).
 * A job's handler loads lazily (worker/jobs.ts lazyModule) and may queue its own job again: that
 * dynamic import is not a cycle of loading, so cycles count static imports only.
 */
const stage = (name) => `^src/emails/${name}/`;
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Import cycles hide the order modules load in and couple features both ways.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['dynamic-import'] } },
    },
    {
      name: 'api-is-upstream',
      severity: 'error',
      comment: 'Nothing below the request side imports it.',
      from: { path: '^src/emails/(queue|render|delivery|tracking)/' },
      to: { path: stage('api') },
    },
    {
      name: 'queue-before-delivery',
      severity: 'error',
      from: { path: stage('queue') },
      to: { path: '^src/emails/(render|delivery|tracking)/' },
    },
    {
      name: 'render-is-a-library',
      severity: 'error',
      comment: 'Rendering knows nothing of queueing, delivery or tracking.',
      from: { path: stage('render') },
      to: { path: '^src/emails/(queue|delivery|tracking)/' },
    },
    {
      name: 'delivery-before-tracking',
      severity: 'error',
      from: { path: stage('delivery') },
      to: { path: '^src/emails/(queue|tracking)/' },
    },
    {
      name: 'shared-root-imports-no-stage',
      severity: 'error',
      from: { path: '^src/emails/[^/]+[.]ts$' },
      to: { path: '^src/emails/(api|queue|render|delivery|tracking)/', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      from: { path: '^src/', pathNot: '[.]test[.]ts$' },
      to: { path: '^test/|[.]test[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
