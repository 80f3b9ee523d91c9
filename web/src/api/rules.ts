/**
 * The validation rules the dashboard shares with the server: the very zod schemas its routes validate
 * request bodies with (pure modules that import nothing but zod), so a form refuses exactly what the
 * server would refuse, before sending. Forms use them through `schemaResolver` of @mantine/form.
 */
export { credentialsBody, requestResetBody, resetPasswordBody, tokenBody } from '../../../src/users/users.schema';
export { addMemberBody, createProjectBody, updateProjectBody } from '../../../src/projects/projects.schema';
export { createDomainBody, isDomainName } from '../../../src/domains/domains.schema';
export { emailField } from '../../../src/users/users.schema';
export { bodyField, subjectField } from '../../../src/emails/api/content.schema';
export { proposeMapping, type ColumnTarget } from '../../../src/contacts/import-mapping';
export { changeEmailBody, changePasswordBody } from '../../../src/users/users.schema';
export { experimentBody, variantBody } from '../../../src/campaigns/experiment.schema';
