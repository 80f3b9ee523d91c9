import type { AuditEntry } from './api';

/** Readable names of the kinds of target, singular. */
const TARGETS: Record<string, string> = {
  project: 'Project',
  member: 'Member',
  invitation: 'Invitation',
  api_key: 'API key',
  domain: 'Domain',
  transport: 'Transport',
  transport_rules: 'Routing rules',
  webhook_endpoint: 'Webhook endpoint',
  template: 'Template',
  campaign: 'Campaign',
  workflow: 'Workflow',
  segment: 'Segment',
  suppression: 'Suppression',
  topic: 'Topic',
  form: 'Form',
  contact: 'Contact',
  export: 'Export',
};

/** Readable verbs; an unknown one is shown with its underscores as spaces. */
const VERBS: Record<string, string> = {
  create: 'created',
  update: 'changed',
  delete: 'deleted',
  remove: 'removed',
  add: 'added',
  send: 'sent',
  schedule: 'scheduled',
  cancel: 'cancelled',
  enable: 'enabled',
  disable: 'disabled',
  edit: 'steps edited',
  verify: 'verification changed',
  revoke: 'revoked',
  resend: 'sent again',
  accept: 'accepted',
  decline: 'declined',
  erase: 'erased',
  import: 'imported',
  reset: 'data reset',
  rotate_secret: 'signing secret replaced',
  regenerate_keys: 'keys regenerated',
  regenerate_key: 'key regenerated',
  acknowledge_health: 'sender health acknowledged',
  pick_winner: 'winner picked',
  add_members: 'members added',
  remove_members: 'members removed',
};

/** `template.update` → "Template changed". */
export function actionLabel(action: string): string {
  const [type, verb = ''] = action.split('.');
  const thing = TARGETS[type] ?? type.replace(/_/g, ' ');
  const done = VERBS[verb] ?? verb.replace(/_/g, ' ');
  return `${thing} ${done}`.trim();
}

/** The action filter's choices: every kind of target (a prefix such as `campaign.`). */
export const ACTION_CHOICES = Object.entries(TARGETS).map(([type, label]) => ({ value: `${type}.`, label }));

/** The screen a target lives on, or null (deleted things still link: their screen says they are gone). */
export function targetPath(projectId: string, e: AuditEntry): string | null {
  const id = e.target.id;
  const base = `/p/${projectId}`;
  switch (e.target.type) {
    case 'template':
      return id ? `${base}/templates/${id}` : null;
    case 'campaign':
      return id ? `${base}/campaigns/${id}` : null;
    case 'segment':
      return id ? `${base}/segments/${id}` : null;
    case 'workflow':
      return id ? `${base}/workflows/${id}` : null;
    case 'form':
      return id ? `${base}/forms/${id}` : null;
    case 'webhook_endpoint':
      return id ? `${base}/webhooks/${id}` : null;
    case 'contact':
      return id ? `${base}/contacts/${id}` : null;
    case 'domain':
      return `${base}/domains`;
    case 'transport':
    case 'transport_rules':
      return `${base}/settings/sending`;
    case 'member':
    case 'invitation':
      return `${base}/settings/members`;
    case 'suppression':
      return `${base}/suppressions`;
    case 'topic':
      return `${base}/topics`;
    case 'api_key':
      return `${base}/keys`;
    case 'project':
      return `${base}/settings`;
    default:
      return null;
  }
}

/** Who acted, in words: the user's email, the key's name, or Pigeon. */
export function actorLabel(e: AuditEntry): string {
  if (e.actor.type === 'user') return e.actor.email ?? 'A user who has left';
  if (e.actor.type === 'key') return e.actor.keyName ?? 'An API key';
  return 'Pigeon';
}

/** A value of `changes` as text: nothing is "—", text as is, anything else as JSON. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}
