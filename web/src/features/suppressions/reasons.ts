import type { SuppressionReason } from './api';

/** Each reason in words, for the list and the pickers. */
export const REASONS: Record<SuppressionReason, { label: string; hint: string }> = {
  bounce: { label: 'Bounced', hint: 'A mail to it bounced for good (the address does not exist).' },
  complaint: { label: 'Marked as spam', hint: 'The recipient reported a mail as spam.' },
  manual: { label: 'Added by hand', hint: 'Someone of this project added it.' },
  unsubscribe: { label: 'Opted out', hint: 'An opt-out, e.g. from a list imported from another provider.' },
};

/** The reasons a person may pick when adding addresses. */
export const PICKABLE: SuppressionReason[] = ['manual', 'unsubscribe', 'bounce', 'complaint'];
