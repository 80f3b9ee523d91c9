import { StatusBadge } from '../../components/StatusBadge';
import type { TemplateType } from './api';

const LABELS: Record<TemplateType, string> = {
  MARKETING: 'Marketing',
  TRANSACTIONAL: 'Transactional',
  HEADLESS: 'Headless',
};

/** A template's type as a small label: marketing mail (unsubscribe footer) stands out from the rest. */
export function TypeBadge({ type }: { type: TemplateType }) {
  return (
    <StatusBadge tone={type === 'MARKETING' ? 'warning' : 'neutral'} data-type={type}>
      {LABELS[type]}
    </StatusBadge>
  );
}
