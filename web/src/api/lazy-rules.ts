/**
 * Loaders of the validation rules of api/rules.ts, for screens whose first paint should not wait for
 * zod (about 25 kB gzipped): a form given a loader (components/forms.tsx `useApiForm`) checks its values
 * on submit. Each loader imports one module with static imports only: a lazy import of the rules barrel would
 * put every rule in one chunk, and one of `zod` itself all of zod.
 */
export const lazyRules = {
  createDomainBody: () => import('../../../src/domains/domains.schema').then((m) => m.createDomainBody),
  addMemberBody: () => import('../../../src/projects/projects.schema').then((m) => m.addMemberBody),
  projectName: () => import('./project-name-rule').then((m) => m.projectNameBody),
};
