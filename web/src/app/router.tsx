import { lazy, Suspense, useEffect, type ComponentType } from 'react';
import { Route, Routes, useLocation, useNavigate } from 'react-router';
import { setUnauthenticatedHandler } from '../api/client';
import { FullPageLoader } from '../components/Loading';
import { NotFound } from '../components/NotFound';
import { AppLayout } from '../components/shell/AppLayout';
import { loginPath } from '../features/auth/paths';
import { prefetchFirstContacts } from '../features/contacts/api';
import { RequireAuth } from '../features/auth/RequireAuth';
import { ProjectLayout } from '../features/projects/ProjectLayout';
import { ErrorBoundary } from './ErrorBoundary';
import { queryClient } from './query-client';

/** The dashboard's base path: the server serves it there (src/web/web.routes.ts), Vite builds for it. */
export const BASENAME = '/app';

/**
 * A screen loaded on first visit: each module is its own chunk, so the first load carries only the
 * shell. `pick` takes the component from the module.
 */
function page<M>(load: () => Promise<M>, pick: (m: M) => ComponentType): ComponentType {
  return lazy(async () => ({ default: pick(await load()) }));
}

const auth = () => import('../features/auth/pages');
// Settings' tabs load one by one: each has its own form (and zod), so none waits for the others.
const projects = () => import('../features/projects/pages');

const LoginPage = page(auth, (m) => m.LoginPage);
const SignupPage = page(auth, (m) => m.SignupPage);
const ForgotPasswordPage = page(auth, (m) => m.ForgotPasswordPage);
const ResetPasswordPage = page(auth, (m) => m.ResetPasswordPage);
const VerifyEmailPage = page(auth, (m) => m.VerifyEmailPage);
const HomeRedirect = page(projects, (m) => m.HomeRedirect);
const WelcomePage = page(
  () => import('../features/projects/WelcomePage'),
  (m) => m.WelcomePage,
);
const ProjectsPage = page(projects, (m) => m.ProjectsPage);
const OverviewPage = page(projects, (m) => m.OverviewPage);
const ApiKeysPage = page(
  () => import('../features/keys/ApiKeysPage'),
  (m) => m.ApiKeysPage,
);
const DomainsPage = page(
  () => import('../features/domains/DomainsPage'),
  (m) => m.DomainsPage,
);
const SettingsLayout = page(
  () => import('../features/settings/SettingsLayout'),
  (m) => m.SettingsLayout,
);
const GeneralSettings = page(
  () => import('../features/settings/GeneralSettings'),
  (m) => m.GeneralSettings,
);
const MembersSettings = page(
  () => import('../features/settings/MembersSettings'),
  (m) => m.MembersSettings,
);
const BillingSettings = page(
  () => import('../features/settings/BillingSettings'),
  (m) => m.BillingSettings,
);
const AuditLogPage = page(
  () => import('../features/audit/AuditLogPage'),
  (m) => m.AuditLogPage,
);
const SendingSettings = page(
  () => import('../features/transports/SendingSettings'),
  (m) => m.SendingSettings,
);
const account = () => import('../features/account/pages');
const AccountPage = page(account, (m) => m.AccountPage);
const ConfirmEmailPage = page(account, (m) => m.ConfirmEmailPage);
const SecurityPage = page(account, (m) => m.SecurityPage);
const InvitationPage = page(
  () => import('../features/invitations/InvitationPage'),
  (m) => m.InvitationPage,
);
const ContactsPage = page(
  () => {
    // The list's first page is asked for while the screen's code loads, not once it has rendered.
    const here = new RegExp(`^${BASENAME}/p/([^/]+)/contacts/?$`).exec(window.location.pathname);
    if (here) prefetchFirstContacts(queryClient, here[1]);
    return import('../features/contacts/ContactsPage');
  },
  (m) => m.ContactsPage,
);
const ContactPage = page(
  () => import('../features/contacts/ContactPage'),
  (m) => m.ContactPage,
);
const SegmentsPage = page(
  () => import('../features/segments/SegmentsPage'),
  (m) => m.SegmentsPage,
);
const SegmentPage = page(
  () => import('../features/segments/SegmentPage'),
  (m) => m.SegmentPage,
);
const TemplatesPage = page(
  () => import('../features/templates/TemplatesPage'),
  (m) => m.TemplatesPage,
);
const TemplateEditorPage = page(
  () => import('../features/templates/TemplateEditorPage'),
  (m) => m.TemplateEditorPage,
);
const CampaignsPage = page(
  () => import('../features/campaigns/CampaignsPage'),
  (m) => m.CampaignsPage,
);
const CampaignEditorPage = page(
  () => import('../features/campaigns/CampaignEditorPage'),
  (m) => m.CampaignEditorPage,
);
const CampaignPage = page(
  () => import('../features/campaigns/CampaignPage'),
  (m) => m.CampaignPage,
);
const WorkflowsPage = page(
  () => import('../features/workflows/WorkflowsPage'),
  (m) => m.WorkflowsPage,
);
const WorkflowEditorPage = page(
  () => import('../features/workflows/WorkflowEditorPage'),
  (m) => m.WorkflowEditorPage,
);
const EmailsPage = page(
  () => import('../features/emails/EmailsPage'),
  (m) => m.EmailsPage,
);
const EmailPage = page(
  () => import('../features/emails/EmailPage'),
  (m) => m.EmailPage,
);
const ActivityPage = page(
  () => import('../features/activity/ActivityPage'),
  (m) => m.ActivityPage,
);
const AnalyticsPage = page(
  () => import('../features/analytics/AnalyticsPage'),
  (m) => m.AnalyticsPage,
);
const WebhooksPage = page(
  () => import('../features/webhooks/WebhooksPage'),
  (m) => m.WebhooksPage,
);
const EndpointPage = page(
  () => import('../features/webhooks/EndpointPage'),
  (m) => m.EndpointPage,
);
const TopicsPage = page(
  () => import('../features/topics/TopicsPage'),
  (m) => m.TopicsPage,
);
const FormsPage = page(
  () => import('../features/forms/FormsPage'),
  (m) => m.FormsPage,
);
const FormEditorPage = page(
  () => import('../features/forms/FormEditorPage'),
  (m) => m.FormEditorPage,
);
const SuppressionsPage = page(
  () => import('../features/suppressions/SuppressionsPage'),
  (m) => m.SuppressionsPage,
);
const ExportsPage = page(
  () => import('../features/exports/ExportsPage'),
  (m) => m.ExportsPage,
);
const RetentionSettings = page(
  () => import('../features/exports/RetentionSettings'),
  (m) => m.RetentionSettings,
);
const SenderHealthPage = page(
  () => import('../features/health/SenderHealthPage'),
  (m) => m.SenderHealthPage,
);

/** Paths that work without a session: a 401 there is not a reason to go to the login page. */
const PUBLIC_PATHS = ['/login', '/signup', '/forgot-password', '/reset-password', '/verify-email'];

/**
 * Sends the person to the login page, keeping the URL they were on, whenever any API call answers
 * 401 because the session is gone (expired, logged out in another tab); the cache is emptied so the
 * next user of the browser sees nothing of the last one.
 */
function SessionGuard() {
  const navigate = useNavigate();
  useEffect(() => {
    setUnauthenticatedHandler(() => {
      const { pathname, search, hash } = window.location;
      const inApp = pathname.startsWith(BASENAME) ? pathname.slice(BASENAME.length) || '/' : pathname;
      if (PUBLIC_PATHS.some((p) => inApp === p || inApp.startsWith(`${p}/`))) return;
      void Promise.resolve(navigate(loginPath(inApp + search + hash), { replace: true })).then(() =>
        queryClient.clear(),
      );
    });
  }, [navigate]);
  return null;
}

/**
 * Every client route, under `/app`. Signed-out pages first; everything else sits behind
 * {@link RequireAuth}; project screens under `/p/:projectId` (the project is in the URL, so links are
 * shareable and another project's URL is "not found"). A new screen: add its route here and its
 * sidebar entry in app/nav.tsx.
 */
export function AppRoutes() {
  const location = useLocation();
  return (
    <>
      <SessionGuard />
      <ErrorBoundary resetKey={location.pathname}>
        <Suspense fallback={<FullPageLoader />}>
          <Routes>
            <Route path="login" element={<LoginPage />} />
            <Route path="signup" element={<SignupPage />} />
            <Route path="forgot-password" element={<ForgotPasswordPage />} />
            <Route path="reset-password" element={<ResetPasswordPage />} />
            <Route path="verify-email" element={<VerifyEmailPage />} />
            <Route path="confirm-email" element={<ConfirmEmailPage />} />
            <Route element={<RequireAuth />}>
              <Route index element={<HomeRedirect />} />
              <Route path="welcome" element={<WelcomePage />} />
              <Route path="projects" element={<ProjectsPage />} />
              <Route path="invitations/:invitationId" element={<InvitationPage />} />
              <Route path="account" element={<AccountPage />} />
              <Route path="account/security" element={<SecurityPage />} />
              <Route path="p/:projectId" element={<ProjectLayout />}>
                <Route index element={<OverviewPage />} />
                <Route path="keys" element={<ApiKeysPage />} />
                <Route path="domains" element={<DomainsPage />} />
                <Route path="contacts" element={<ContactsPage />} />
                <Route path="contacts/:contactId" element={<ContactPage />} />
                <Route path="segments" element={<SegmentsPage />} />
                <Route path="segments/new" element={<SegmentPage />} />
                <Route path="segments/:segmentId" element={<SegmentPage />} />
                <Route path="templates" element={<TemplatesPage />} />
                <Route path="templates/new" element={<TemplateEditorPage />} />
                <Route path="templates/:templateId" element={<TemplateEditorPage />} />
                <Route path="campaigns" element={<CampaignsPage />} />
                <Route path="campaigns/new" element={<CampaignEditorPage />} />
                <Route path="campaigns/:campaignId" element={<CampaignPage />} />
                <Route path="campaigns/:campaignId/edit" element={<CampaignEditorPage />} />
                <Route path="workflows" element={<WorkflowsPage />} />
                <Route path="workflows/:workflowId" element={<WorkflowEditorPage />} />
                <Route path="emails" element={<EmailsPage />} />
                <Route path="emails/:emailId" element={<EmailPage />} />
                <Route path="activity" element={<ActivityPage />} />
                <Route path="analytics" element={<AnalyticsPage />} />
                <Route path="health" element={<SenderHealthPage />} />
                <Route path="suppressions" element={<SuppressionsPage />} />
                <Route path="exports" element={<ExportsPage />} />
                <Route path="topics" element={<TopicsPage />} />
                <Route path="forms" element={<FormsPage />} />
                <Route path="forms/new" element={<FormEditorPage />} />
                <Route path="forms/:formId" element={<FormEditorPage />} />
                <Route path="webhooks" element={<WebhooksPage />} />
                <Route path="webhooks/:endpointId" element={<EndpointPage />} />
                <Route path="settings" element={<SettingsLayout />}>
                  <Route index element={<GeneralSettings />} />
                  <Route path="members" element={<MembersSettings />} />
                  <Route path="billing" element={<BillingSettings />} />
                  <Route path="sending" element={<SendingSettings />} />
                  <Route path="retention" element={<RetentionSettings />} />
                  <Route path="audit" element={<AuditLogPage />} />
                </Route>
                <Route path="*" element={<NotFound />} />
              </Route>
              <Route
                path="*"
                element={
                  <AppLayout>
                    <NotFound />
                  </AppLayout>
                }
              />
            </Route>
          </Routes>
        </Suspense>
      </ErrorBoundary>
    </>
  );
}
