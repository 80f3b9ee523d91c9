import type { Block, BlocksDocument, BlocksStyle, LeafBlock } from './blocks.schema.js';
import { attrKeepingLiquid as attr, escapeKeepingLiquid as esc, sanitizeRichText } from './rich-text.js';

/**
 * The visual editor's document as MJML: the one place a `blocks` document becomes mail. Its output goes
 * through the MJML compiler like an `mjml` body (format.ts), so the editor's preview, a test and the
 * sent mail are the same HTML. Deterministic: the same document and options give the same MJML (the
 * compile cache relies on it).
 */

/** The words the renderer writes itself (the footer's links), in the mail's language. */
export interface BlocksLabels {
  unsubscribe: string;
  preferences: string;
}

export const ENGLISH_LABELS: BlocksLabels = { unsubscribe: 'Unsubscribe', preferences: 'Manage preferences' };

export interface BlocksRenderOptions {
  /** BCP 47 tag written as the document's `lang` (WCAG 3.1.1); default `en`. */
  lang?: string;
  /** The mail's subject, as the HTML `<title>`. */
  title?: string;
  labels?: BlocksLabels;
}

const HEADING_SIZES = { 1: 28, 2: 22, 3: 18 } as const;

const px = (n: number) => `${n}px`;
const pad = (p: readonly number[] | null | undefined, fallback: string) => (p ? p.map(px).join(' ') : fallback);
const TEXT_PADDING = '8px 24px';

/** Renders `doc` to an MJML document (see the module's docstring). */
export function blocksToMjml(doc: BlocksDocument, opts: BlocksRenderOptions = {}): string {
  const s = doc.style;
  const labels = opts.labels ?? ENGLISH_LABELS;
  const head = [
    opts.title ? `<mj-title>${esc(opts.title)}</mj-title>` : '',
    doc.preheader ? `<mj-preview>${esc(doc.preheader)}</mj-preview>` : '',
    '<mj-attributes>',
    `<mj-all font-family="${attr(s.fontFamily)}" />`,
    `<mj-text font-size="${px(s.fontSize)}" line-height="1.5" color="${s.textColor}" padding="${TEXT_PADDING}" />`,
    `<mj-button background-color="${s.brandColor}" font-size="${px(s.fontSize)}" font-weight="600" inner-padding="12px 24px" padding="12px 24px" />`,
    `<mj-image padding="8px 24px" />`,
    `<mj-divider padding="12px 24px" />`,
    `<mj-section padding="0" background-color="${s.contentBackground}" />`,
    '</mj-attributes>',
    // Links in rich text take the document's link colour; p margins as mail clients' defaults vary.
    `<mj-style>a { color: ${s.linkColor}; } p { margin: 0 0 12px; } p:last-child { margin-bottom: 0; }</mj-style>`,
  ];
  const logo = s.logoUrl
    ? section(
        `<mj-image src="${attr(s.logoUrl)}" alt="${attr(s.logoAlt ?? '')}" width="160px" align="center" padding="24px 24px 8px" />`,
      )
    : '';
  return [
    `<mjml lang="${attr(opts.lang ?? 'en')}">`,
    `<mj-head>${head.join('')}</mj-head>`,
    `<mj-body background-color="${s.backgroundColor}" width="${px(s.width)}">`,
    logo,
    body(doc.blocks, s, labels),
    '</mj-body>',
    '</mjml>',
  ].join('\n');
}

const section = (inner: string, attrs = '') => `<mj-section${attrs}><mj-column>${inner}</mj-column></mj-section>`;

/** Top-level blocks: runs of single-column blocks share one section; columns, if and for stand alone. */
function body(blocks: readonly Block[], s: BlocksStyle, labels: BlocksLabels): string {
  const out: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length) out.push(section(run.join('\n')));
    run = [];
  };
  for (const b of blocks) {
    if (b.type === 'columns') {
      flush();
      const widths = b.widths?.length === b.columns.length ? b.widths : null;
      const bg = b.backgroundColor ? ` background-color="${b.backgroundColor}"` : '';
      const cols = b.columns
        .map((c, i) => {
          const w = widths ? ` width="${widths[i]}%"` : '';
          return `<mj-column${w}>${c.blocks.map((x) => leaf(x, s, labels)).join('\n')}</mj-column>`;
        })
        .join('');
      out.push(`<mj-section${bg} padding="${pad(b.padding, '8px 0')}">${cols}</mj-section>`);
    } else if (b.type === 'if') {
      flush();
      out.push(`<mj-raw>{% if ${b.condition} %}</mj-raw>`, body(b.blocks, s, labels));
      if (b.elseBlocks.length) out.push('<mj-raw>{% else %}</mj-raw>', body(b.elseBlocks, s, labels));
      out.push('<mj-raw>{% endif %}</mj-raw>');
    } else if (b.type === 'for') {
      flush();
      out.push(
        `<mj-raw>{% for ${b.variable} in ${b.collection} %}</mj-raw>`,
        body(b.blocks, s, labels),
        '<mj-raw>{% endfor %}</mj-raw>',
      );
    } else run.push(leaf(b, s, labels));
  }
  flush();
  return out.join('\n');
}

/** One block inside a column. */
function leaf(b: LeafBlock, s: BlocksStyle, labels: BlocksLabels): string {
  switch (b.type) {
    case 'heading': {
      const size = HEADING_SIZES[b.level];
      const color = b.color ? ` color="${b.color}"` : '';
      return (
        `<mj-text align="${b.align}"${color} font-size="${px(size)}" line-height="1.3" font-weight="700" padding="${pad(b.padding, '16px 24px 8px')}">` +
        `<h${b.level} style="margin:0;font-size:${px(size)};font-weight:700">${esc(b.text)}</h${b.level}></mj-text>`
      );
    }
    case 'text': {
      const color = b.color ? ` color="${b.color}"` : '';
      const size = b.fontSize ? ` font-size="${px(b.fontSize)}"` : '';
      return `<mj-text align="${b.align}"${color}${size} padding="${pad(b.padding, TEXT_PADDING)}">${sanitizeRichText(b.html)}</mj-text>`;
    }
    case 'image': {
      const href = b.href ? ` href="${attr(b.href)}"` : '';
      const width = b.width ? ` width="${px(b.width)}"` : '';
      return `<mj-image src="${attr(b.src)}" alt="${attr(b.alt)}"${href}${width} align="${b.align}" padding="${pad(b.padding, '8px 24px')}" />`;
    }
    case 'button':
      return (
        `<mj-button href="${attr(b.href)}" align="${b.align}" background-color="${b.color ?? s.brandColor}" color="${b.textColor}" ` +
        `border-radius="${px(b.borderRadius)}" padding="${pad(b.padding, '12px 24px')}">${esc(b.label)}</mj-button>`
      );
    case 'divider':
      return `<mj-divider border-color="${b.color}" border-width="${px(b.thickness)}" padding="${pad(b.padding, '12px 24px')}" />`;
    case 'spacer':
      return `<mj-spacer height="${px(b.height)}" />`;
    case 'social':
      return `<mj-social align="${b.align}" mode="horizontal" icon-size="24px" padding="12px 24px">${b.links.map(socialElement).join('')}</mj-social>`;
    case 'footer': {
      const links = [
        b.unsubscribe ? `<a href="{{ unsubscribeUrl }}">${esc(labels.unsubscribe)}</a>` : '',
        b.preferences ? `<a href="{{ manageUrl }}">${esc(labels.preferences)}</a>` : '',
      ].filter(Boolean);
      const text = b.html.trim() ? sanitizeRichText(b.html) : '';
      const linkLine = links.length ? `<p>${links.join(' · ')}</p>` : '';
      return `<mj-text align="${b.align}" font-size="12px" color="#6b7280" padding="16px 24px 24px">${text}${linkLine}</mj-text>`;
    }
    case 'html':
      return `<mj-raw>${b.html}</mj-raw>`;
  }
}

// MJML's own icons (hosted by MJML); the networks it has none for show the generic web icon.
const MJML_NETWORK: Record<string, string> = {
  facebook: 'facebook',
  x: 'x',
  instagram: 'instagram',
  linkedin: 'linkedin',
  youtube: 'youtube',
  github: 'github',
  website: 'web',
};
const NETWORK_NAME: Record<string, string> = {
  facebook: 'Facebook',
  x: 'X',
  instagram: 'Instagram',
  linkedin: 'LinkedIn',
  youtube: 'YouTube',
  github: 'GitHub',
  tiktok: 'TikTok',
  mastodon: 'Mastodon',
  website: 'Website',
};

function socialElement(l: { network: string; url: string }): string {
  const name = MJML_NETWORK[l.network] ?? 'web';
  return `<mj-social-element name="${name}" href="${attr(l.url)}" alt="${NETWORK_NAME[l.network]}"></mj-social-element>`;
}
