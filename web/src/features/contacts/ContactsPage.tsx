import { Button, Tabs } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconFileImport, IconUserPlus } from '@tabler/icons-react';
import { lazy, Suspense } from 'react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../components/PageHeader';
import { useProject } from '../projects/ProjectContext';
import { ContactsTable } from './ContactsTable';
import { FieldsPanel } from './FieldsPanel';

// The dialogs (with the form and validation code) load on first use: the list renders without them.
const CreateContactModal = lazy(() => import('./CreateContactModal').then((m) => ({ default: m.CreateContactModal })));
const ImportModal = lazy(() => import('./ImportModal').then((m) => ({ default: m.ImportModal })));

/**
 * `/p/:projectId/contacts`: the contact list (search, filter, sort, pages, bulk actions), adding one
 * contact, importing a CSV, and the fields inventory (`?tab=fields`).
 */
export function ContactsPage() {
  const { project } = useProject();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'fields' ? 'fields' : 'list';
  const [creating, create] = useDisclosure();
  const [importing, imp] = useDisclosure();
  const actions = (
    <>
      <Button variant="default" leftSection={<IconFileImport size={16} />} onClick={imp.open}>
        Import CSV
      </Button>
      <Button leftSection={<IconUserPlus size={16} />} onClick={create.open}>
        Add contact
      </Button>
    </>
  );
  return (
    <>
      <PageHeader
        title="Contacts"
        description="Everyone your project sends to: their data, subscription state and history."
        actions={actions}
      />
      <Tabs
        value={tab}
        onChange={(v) => setParams(v === 'fields' ? { tab: 'fields' } : {}, { replace: true })}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="list">All contacts</Tabs.Tab>
          <Tabs.Tab value="fields">Fields</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="list">
          <ContactsTable projectId={project.id} emptyActions={actions} />
        </Tabs.Panel>
        <Tabs.Panel value="fields">
          <FieldsPanel projectId={project.id} />
        </Tabs.Panel>
      </Tabs>
      <Suspense fallback={null}>
        {creating && <CreateContactModal projectId={project.id} opened onClose={create.close} />}
        {importing && <ImportModal projectId={project.id} opened onClose={imp.close} />}
      </Suspense>
    </>
  );
}
