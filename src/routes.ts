import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';
import { activityRoutes } from './activity/activity.routes.js';
import { analyticsRoutes } from './analytics/analytics.routes.js';
import { linkReportRoutes } from './analytics/links.routes.js';
import { billingRoutes } from './billing/billing.routes.js';
import { campaignsRoutes } from './campaigns/campaigns.routes.js';
import { consentRoutes } from './consent/consent.routes.js';
import { contactsRoutes } from './contacts/contacts.routes.js';
import { dataRightsRoutes } from './contacts/data-rights.routes.js';
import { topicsRoutes } from './topics/topics.routes.js';
import { formsRoutes } from './forms/forms.routes.js';
import { formsPublicRoutes } from './forms/public.routes.js';
import { domainsRoutes } from './domains/domains.routes.js';
import { emailLogRoutes } from './emails/api/emails.log.routes.js';
import { emailsRoutes } from './emails/api/emails.routes.js';
import { transportsRoutes } from './transports/transports.routes.js';
import { trackingRoutes } from './emails/tracking/tracking.routes.js';
import { subscriptionRoutes } from './emails/tracking/subscription.routes.js';
import { eventsRoutes } from './events/events.routes.js';
import { exportsRoutes } from './exports/exports.routes.js';
import { feedbackRoutes } from './feedback/feedback.routes.js';
import { trackRoutes } from './events/track.routes.js';
import { auditRoutes } from './audit/audit.routes.js';
import { invitationsRoutes } from './invitations/invitations.routes.js';
import { apiKeysRoutes } from './keys/api-keys.routes.js';
import { membersRoutes } from './projects/members.routes.js';
import { projectsRoutes } from './projects/projects.routes.js';
import { segmentsRoutes } from './segments/segments.routes.js';
import { suppressionsRoutes } from './suppressions/suppressions.routes.js';
import { systemRoutes } from './system/system.routes.js';
import { galleryRoutes } from './templates/gallery.routes.js';
import { templatesRoutes } from './templates/templates.routes.js';
import { emailStyleRoutes } from './content/email-style.routes.js';
import { uploadsRoutes } from './uploads/uploads.routes.js';
import { usersRoutes } from './users/users.routes.js';
import { oidcRoutes } from './users/sign-in/oidc.routes.js';
import { factorsRoutes } from './users/sign-in/factors.routes.js';
import { sessionsRoutes } from './users/sessions.routes.js';
import { verifyRoutes } from './verify/verify.routes.js';
import { webRoutes } from './web/web.routes.js';
import { webhookEndpointsRoutes } from './webhook-endpoints/webhook-endpoints.routes.js';
import { workflowsRoutes } from './workflows/workflows.routes.js';
import { executionsRoutes } from './workflows/executions.routes.js';

/**
 * Every feature's routes. Each feature folder exports one `(app, deps) => Promise<void>`; add it here.
 */
export async function featureRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const features = [
    systemRoutes,
    usersRoutes,
    oidcRoutes,
    factorsRoutes,
    sessionsRoutes,
    projectsRoutes,
    membersRoutes,
    invitationsRoutes,
    apiKeysRoutes,
    auditRoutes,
    billingRoutes,
    domainsRoutes,
    verifyRoutes,
    emailsRoutes,
    trackingRoutes,
    subscriptionRoutes,
    trackRoutes,
    eventsRoutes,
    contactsRoutes,
    dataRightsRoutes,
    topicsRoutes,
    formsRoutes,
    formsPublicRoutes,
    consentRoutes,
    templatesRoutes,
    galleryRoutes,
    emailStyleRoutes,
    activityRoutes,
    analyticsRoutes,
    linkReportRoutes,
    uploadsRoutes,
    segmentsRoutes,
    campaignsRoutes,
    workflowsRoutes,
    executionsRoutes,
    feedbackRoutes,
    suppressionsRoutes,
    webhookEndpointsRoutes,
    transportsRoutes,
    emailLogRoutes,
    exportsRoutes,
    // The dashboard's pages under /app/ (and GET / → /app/); no API path is shadowed.
    webRoutes,
  ];
  for (const register of features) {
    await app.register(async (scope) => register(scope, deps));
  }
}
