import { Spotlight, spotlight, type SpotlightActionData, type SpotlightActionGroupData } from '@mantine/spotlight';
import { useDebouncedValue } from '@mantine/hooks';
import { IconAddressBook, IconSearch, IconSend, IconTemplate } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { api, inProject, unwrap } from '../../api/client';
import { projectNav } from '../../app/nav';

const SHOWN = 5;

/**
 * Up to 5 contacts (by email), campaigns and templates (by name) of the project matching `search`,
 * from their list routes; nothing is asked under 2 characters.
 */
function useMatches(projectId: string | undefined, search: string) {
  const enabled = !!projectId && search.length >= 2;
  const headers = inProject(projectId ?? '');
  const key = (what: string) => ['palette', projectId, what, search] as const;
  const contacts = useQuery({
    queryKey: key('contacts'),
    enabled,
    queryFn: () => unwrap(api.GET('/contacts', { params: { query: { search, limit: String(SHOWN) } }, headers })),
  });
  const campaigns = useQuery({
    queryKey: key('campaigns'),
    enabled,
    queryFn: () => unwrap(api.GET('/campaigns', { params: { query: { search, pageSize: SHOWN } }, headers })),
  });
  const templates = useQuery({
    queryKey: key('templates'),
    enabled,
    queryFn: () => unwrap(api.GET('/templates', { params: { query: { search, pageSize: SHOWN } }, headers })),
  });
  return {
    contacts: enabled ? (contacts.data?.data ?? []) : [],
    campaigns: enabled ? (campaigns.data?.data ?? []) : [],
    templates: enabled ? (templates.data?.data ?? []) : [],
    loading: enabled && (contacts.isFetching || campaigns.isFetching || templates.isFetching),
  };
}

/**
 * The command palette (Mantine Spotlight; Ctrl+K or Cmd+K, or the header's Search button, both bound
 * in AppLayout, which loads this lazily on the first ask and counts asks in `asked`): jumps to
 * any screen of the project's sidebar, or to a contact, campaign or template found by its email or
 * name. Outside a project it lists nothing but the way to the projects list.
 */
export function CommandPalette({ projectId, asked }: { projectId?: string; asked: number }) {
  const navigate = useNavigate();
  const [query, setQuery] = useState('');
  const [search] = useDebouncedValue(query.trim(), 200);
  const found = useMatches(projectId, search);
  // Each new ask opens it, the first one included (AppLayout mounts it then).
  useEffect(() => spotlight.open(), [asked]);

  const actions = useMemo(() => {
    const base = `/p/${projectId}`;
    const go = (to: string) => () => void navigate(to);
    const q = query.trim().toLowerCase();
    const screens: SpotlightActionData[] = projectId
      ? projectNav.flatMap((section) =>
          section.items.map((item) => ({
            id: `screen-${item.label}`,
            label: item.label,
            description: section.title ?? 'Project',
            leftSection: <item.icon size={18} stroke={1.6} />,
            onClick: go(item.to ? `${base}/${item.to}` : base),
          })),
        )
      : [{ id: 'screen-projects', label: 'All projects', description: 'Account', onClick: go('/projects') }];
    const groups: SpotlightActionGroupData[] = [
      { group: 'Screens', actions: screens.filter((s) => !q || String(s.label).toLowerCase().includes(q)) },
      {
        group: 'Contacts',
        actions: found.contacts.map((c) => ({
          id: `contact-${c.id}`,
          label: c.email,
          description: c.subscribed ? 'Contact, subscribed' : 'Contact, unsubscribed',
          leftSection: <IconAddressBook size={18} stroke={1.6} />,
          onClick: go(`${base}/contacts/${c.id}`),
        })),
      },
      {
        group: 'Campaigns',
        actions: found.campaigns.map((c) => ({
          id: `campaign-${c.id}`,
          label: c.name,
          description: `Campaign, ${c.status.toLowerCase()}`,
          leftSection: <IconSend size={18} stroke={1.6} />,
          onClick: go(`${base}/campaigns/${c.id}`),
        })),
      },
      {
        group: 'Templates',
        actions: found.templates.map((t) => ({
          id: `template-${t.id}`,
          label: t.name,
          description: `Template, ${t.type.toLowerCase()}`,
          leftSection: <IconTemplate size={18} stroke={1.6} />,
          onClick: go(`${base}/templates/${t.id}`),
        })),
      },
    ];
    return groups.filter((g) => g.actions.length > 0);
  }, [projectId, navigate, query, found.contacts, found.campaigns, found.templates]);

  return (
    <Spotlight
      actions={actions}
      // Filtered above: the server already matched contacts, campaigns and templates.
      filter={(_q, a) => a}
      query={query}
      onQueryChange={setQuery}
      // AppLayout binds Ctrl+K / Cmd+K (it works before this code is loaded).
      shortcut={null}
      // The dialog's name for screen readers; the header that holds it is hidden (global.css).
      title="Go to"
      classNames={{ header: 'pigeon-visually-hidden' }}
      nothingFound={found.loading || query.trim() !== search ? 'Searching…' : 'Nothing found'}
      highlightQuery
      scrollable
      maxHeight={420}
      searchProps={{
        leftSection: <IconSearch size={18} stroke={1.6} />,
        placeholder: projectId ? 'Go to a screen, contact, campaign or template…' : 'Go to…',
        'aria-label': 'Search screens, contacts, campaigns and templates',
      }}
    />
  );
}
