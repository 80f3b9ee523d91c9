import { Box, Group, Stack, Text } from '@mantine/core';
import { splitOf } from './experiment';

// A colour per variant (A to E), the holdout's and the rest's: the bar holds no text, the legend repeats them.
const VARIANT_COLORS = ['blue', 'grape', 'teal', 'orange', 'pink'];
const HOLDOUT_COLOR = 'gray';
const REST_COLOR = 'green';

const contacts = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'contact' : 'contacts'}`;
const share = (p: number) => `${Number.isInteger(p) ? p : p.toFixed(1)} %`;

/**
 * How an A/B test cuts the audience, drawn as one horizontal bar (holdout | A | B | … | the rest that
 * gets the winner) with a legend of each part's share and, once the audience is counted (`count`), its
 * contacts as the send will draw them. The bar is decoration; the legend says it all in words.
 */
export function SplitBar({
  keys,
  testPercent,
  holdoutPercent,
  count,
}: {
  keys: string[];
  testPercent: number;
  holdoutPercent: number;
  /** Eligible contacts if sent now; null while counting or unknown. */
  count: number | null;
}) {
  const valid = testPercent >= 1 && testPercent <= 100 && holdoutPercent >= 0 && holdoutPercent <= 50;
  if (!valid || (testPercent < 100 && testPercent + holdoutPercent > 100)) return null;
  const pure = testPercent >= 100;
  const each = (pure ? 100 - holdoutPercent : testPercent) / keys.length;
  const split = count === null ? null : splitOf(count, testPercent, holdoutPercent, keys.length);
  const parts = [
    {
      id: 'holdout',
      label: 'Holdout',
      note: 'not mailed, for comparison',
      pct: holdoutPercent,
      n: split?.holdout,
      color: HOLDOUT_COLOR,
    },
    ...keys.map((k, i) => ({
      id: k,
      label: `Variant ${k}`,
      note: pure ? 'its test group' : 'test group',
      pct: each,
      n: split?.variants[i],
      color: VARIANT_COLORS[i % VARIANT_COLORS.length],
    })),
    {
      id: 'rest',
      label: 'The rest',
      note: 'gets the winner',
      pct: pure ? 0 : 100 - holdoutPercent - testPercent,
      n: split?.rest,
      color: REST_COLOR,
    },
  ].filter((p) => p.pct > 0);
  return (
    <Stack
      gap={6}
      data-testid="split-bar"
      data-split={split ? [split.holdout, ...split.variants, split.rest].join(',') : undefined}
    >
      <Text size="sm" fw={500}>
        How the audience is split{count !== null ? ` (${contacts(count)} if sent now)` : ''}
      </Text>
      <Box
        aria-hidden
        style={{ display: 'flex', height: 20, borderRadius: 4, overflow: 'hidden', gap: 2 }}
        data-testid="split-bar-track"
      >
        {parts.map((p) => (
          <Box
            key={p.id}
            style={{ flexGrow: p.pct, flexBasis: 0, minWidth: 4, background: `var(--mantine-color-${p.color}-6)` }}
          />
        ))}
      </Box>
      <Group gap="md" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {parts.map((p) => (
          <Group key={p.id} gap={6} component="li" wrap="nowrap" data-part={p.id} data-contacts={p.n}>
            <Box
              aria-hidden
              style={{ width: 10, height: 10, borderRadius: 2, background: `var(--mantine-color-${p.color}-6)` }}
            />
            <Text size="xs">
              <Text span fw={600} size="xs">
                {p.label}
              </Text>{' '}
              {share(p.pct)}
              {p.n !== undefined ? ` · ${contacts(p.n)}` : ''} · {p.note}
            </Text>
          </Group>
        ))}
      </Group>
    </Stack>
  );
}
