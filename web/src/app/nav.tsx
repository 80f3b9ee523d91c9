import {
  IconAddressBook,
  IconChartBar,
  IconFileExport,
  IconFilter,
  IconForms,
  IconHeartbeat,
  IconHome,
  IconKey,
  IconListDetails,
  IconMailOff,
  IconMail,
  IconRoute,
  IconSend,
  IconSettings,
  IconTags,
  IconTemplate,
  IconWebhook,
  IconWorldWww,
  type Icon,
} from '@tabler/icons-react';

/** One entry of the project sidebar; `to` is relative to `/p/:projectId/`. */
export interface NavItem {
  label: string;
  to: string;
  icon: Icon;
  /** False while the screen is a "coming soon" placeholder (shown with a badge). */
  ready: boolean;
}

export interface NavSection {
  /** Section heading; null for the top entries. */
  title: string | null;
  items: NavItem[];
}

/**
 * The project sidebar. A new screen gets its entry here and its route in app/router.tsx; flip `ready`
 * when the placeholder is replaced.
 */
export const projectNav: NavSection[] = [
  { title: null, items: [{ label: 'Overview', to: '', icon: IconHome, ready: true }] },
  {
    title: 'Audience',
    items: [
      { label: 'Contacts', to: 'contacts', icon: IconAddressBook, ready: true },
      { label: 'Segments', to: 'segments', icon: IconFilter, ready: true },
      { label: 'Topics', to: 'topics', icon: IconTags, ready: true },
      { label: 'Forms', to: 'forms', icon: IconForms, ready: true },
      { label: 'Suppressions', to: 'suppressions', icon: IconMailOff, ready: true },
      { label: 'Exports', to: 'exports', icon: IconFileExport, ready: true },
    ],
  },
  {
    title: 'Messaging',
    items: [
      { label: 'Templates', to: 'templates', icon: IconTemplate, ready: true },
      { label: 'Campaigns', to: 'campaigns', icon: IconSend, ready: true },
      { label: 'Workflows', to: 'workflows', icon: IconRoute, ready: true },
    ],
  },
  {
    title: 'Insights',
    items: [
      { label: 'Emails', to: 'emails', icon: IconMail, ready: true },
      { label: 'Activity', to: 'activity', icon: IconListDetails, ready: true },
      { label: 'Analytics', to: 'analytics', icon: IconChartBar, ready: true },
      { label: 'Sender health', to: 'health', icon: IconHeartbeat, ready: true },
    ],
  },
  {
    title: 'Project',
    items: [
      { label: 'Domains', to: 'domains', icon: IconWorldWww, ready: true },
      { label: 'API keys', to: 'keys', icon: IconKey, ready: true },
      { label: 'Webhooks', to: 'webhooks', icon: IconWebhook, ready: true },
      { label: 'Settings', to: 'settings', icon: IconSettings, ready: true },
    ],
  },
];
