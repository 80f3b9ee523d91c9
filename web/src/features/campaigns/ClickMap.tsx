import { Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconClick } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, inProject, unwrap } from '../../api/client';
import type { ResponseOf } from '../../api/types';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { MACHINES_LEFT_OUT } from '../analytics/human';
import { campaignKeys } from './api';

/** One tracked link's figures (`GET /campaigns/:id/links`, `GET /workflows/:id/steps/:stepId/links`). */
export type LinkStats = ResponseOf<'/campaigns/{id}/links', 'get'>['data'][number];

/** Which figure the badges show: emails clicked by people (default), emails clicked, or every click. */
export type ClickMetric = 'humanClicks' | 'uniqueClicks' | 'clicks';

/** `GET /campaigns/:id/links`, refreshed with the campaign's other reports. */
export function useCampaignLinks(projectId: string, campaignId: string) {
  return useQuery({
    queryKey: [...campaignKeys.all(projectId), 'links', campaignId] as const,
    queryFn: () =>
      unwrap(api.GET('/campaigns/{id}/links', { params: { path: { id: campaignId } }, headers: inProject(projectId) })),
  });
}

/**
 * The tracked links of `html` in the order the server numbers them (emails/render/links.ts): every
 * `<a href>` whose value is an absolute http(s) URL, in document order. `{{unsubscribeUrl}}` and the
 * other subscription links are not http(s) before rendering, so they are skipped here as the server
 * skips the service's own links.
 */
function trackedAnchors(doc: Document): HTMLAnchorElement[] {
  return [...doc.querySelectorAll('a[href]')].filter((a): a is HTMLAnchorElement => {
    const href = (a.getAttribute('href') ?? '').trim();
    return /^https?:\/\/\S/i.test(href) && !OWN_LINK.test(href);
  });
}

/**
 * Pigeon's own links in a rendered mail (the footer's unsubscribe and preference-centre pages), which
 * the server never tracks (it skips every link under PUBLIC_URL); recognised by their paths here,
 * since the dashboard does not know PUBLIC_URL.
 */
const OWN_LINK = /^https?:\/\/[^/]+(\/[^?#]*)?\/(unsubscribe|subscribe|preferences|manage)\/[^/?#]+$/i;

const BADGE =
  'display:inline-block;margin-left:4px;padding:0 6px;border-radius:9px;background:#d9480f;color:#fff;' +
  'font:600 11px/18px system-ui,sans-serif;vertical-align:middle;text-decoration:none;white-space:nowrap';

/**
 * `html` with a count badge at the end of each tracked link. The link at position p with href h counts
 * the rows of position p and URL h; when there are none, the rows of position p whose URL is no href of
 * this mail (a link made per contact by Liquid, `https://x.test/?u={{id}}`, is stored as each contact's
 * URL); plus, either way, the rows of URL h without a position (clicked before positions were
 * recorded). Variants with bodies of their own share positions, so a URL match comes first. Built with
 * DOMParser; the result only ever goes into a sandboxed frame.
 */
export function withBadges(html: string, links: LinkStats[], metric: ClickMetric): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const anchors = trackedAnchors(doc);
  const hrefs = new Set(anchors.map((a) => (a.getAttribute('href') ?? '').trim()));
  const sum = (rows: LinkStats[]) => rows.reduce((n, l) => n + l[metric], 0);
  anchors.forEach((a, position) => {
    const url = (a.getAttribute('href') ?? '').trim();
    const here = links.filter((l) => l.position === position);
    const same = here.filter((l) => l.url === url);
    const n =
      sum(same.length > 0 ? same : here.filter((l) => !hrefs.has(l.url))) +
      sum(links.filter((l) => l.position === null && l.url === url));
    const badge = doc.createElement('span');
    badge.setAttribute('style', BADGE);
    badge.setAttribute('data-click-badge', String(position));
    badge.textContent = n.toLocaleString();
    a.append(badge);
  });
  return `<!doctype html>${doc.documentElement.outerHTML}`;
}

const METRIC_LABEL: Record<ClickMetric, string> = {
  humanClicks: `the emails a person clicked (${MACHINES_LEFT_OUT} left out)`,
  uniqueClicks: 'the emails with a click, machines included',
  clicks: 'every click, machines and repeats included',
};

/** The click map's choice of figure: people (default), unique (emails with a click), all clicks. */
export function ClickMetricSwitch({ value, onChange }: { value: ClickMetric; onChange: (m: ClickMetric) => void }) {
  return (
    <SegmentedControl
      size="xs"
      aria-label="Count on each link"
      value={value}
      onChange={(v) => onChange(v as ClickMetric)}
      data={[
        { value: 'humanClicks', label: 'People' },
        { value: 'uniqueClicks', label: 'Unique' },
        { value: 'clicks', label: 'All clicks' },
      ]}
    />
  );
}

export interface ClickMapProps {
  /** The mail's HTML as written (the campaign's or the template's body); links inside Liquid blocks that differ per contact may shift positions. */
  html: string;
  /** The link report (`useCampaignLinks(...).data.data`, or a workflow step's). */
  links: LinkStats[];
  /** What the badges count; default `humanClicks` (machine activity left out). */
  metric?: ClickMetric;
  /** Frame height in pixels; default 520. */
  height?: number;
}

/**
 * The mail with a count on each tracked link, in a sandboxed frame (or a sentence when it has none) (`sandbox=""`: no scripts, forms
 * or same-origin access), and every link's figures in a table below: clicks (machines included),
 * emails with a click, and emails a person clicked.
 */
export function ClickMap({ html, links, metric = 'humanClicks', height = 520 }: ClickMapProps) {
  const doc = useMemo(() => withBadges(html, links, metric), [html, links, metric]);
  // A mail without a tracked link has nothing to count: say so instead of an empty map and table.
  const tracked = useMemo(() => trackedAnchors(new DOMParser().parseFromString(html, 'text/html')).length, [html]);
  if (tracked === 0 && links.length === 0)
    return (
      <Text size="sm" c="dimmed" data-testid="no-tracked-links">
        This mail has no tracked link: only links to http(s) addresses are counted.
      </Text>
    );
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        Each link's badge counts {METRIC_LABEL[metric]}.
      </Text>
      <Paper p={0} style={{ overflow: 'hidden' }}>
        <iframe
          title="The email with clicks per link"
          sandbox=""
          srcDoc={doc}
          data-testid="click-map-frame"
          style={{ width: '100%', height, border: 0, display: 'block', background: 'white' }}
        />
      </Paper>
      {links.length === 0 ? (
        <EmptyState icon={<IconClick />} title="No clicks yet" description="Clicks on tracked links show here." />
      ) : (
        <DataTable
          caption="Clicks per link"
          rows={links}
          rowKey={(l) => `${l.position ?? 'none'} ${l.url}`}
          columns={[
            {
              key: 'position',
              header: 'Position',
              width: 90,
              render: (l) => (l.position === null ? '–' : l.position + 1),
            },
            {
              key: 'url',
              header: 'Link',
              render: (l) => (
                <Text size="sm" truncate="end" maw={420} title={l.url}>
                  {l.url}
                </Text>
              ),
            },
            { key: 'clicks', header: 'Clicks', align: 'right', render: (l) => l.clicks.toLocaleString() },
            { key: 'unique', header: 'Unique', align: 'right', render: (l) => l.uniqueClicks.toLocaleString() },
            { key: 'human', header: 'People', align: 'right', render: (l) => l.humanClicks.toLocaleString() },
          ]}
        />
      )}
    </Stack>
  );
}
