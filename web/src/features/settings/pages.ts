/** The settings pages, one lazily loaded chunk. */
export { BillingSettings } from './BillingSettings';
export { GeneralSettings } from './GeneralSettings';
export { MembersSettings } from './MembersSettings';
export { SettingsLayout } from './SettingsLayout';
