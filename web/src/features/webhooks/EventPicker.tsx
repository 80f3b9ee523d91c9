import { Checkbox, Fieldset, SimpleGrid, Stack, TagsInput, Text } from '@mantine/core';
import { WEBHOOK_EVENT_TYPES } from '../../../../src/webhook-endpoints/event-types';

/** The families the picker groups types by, with a sentence for each. */
const FAMILIES = [
  {
    family: 'email',
    label: 'Email events',
    hint: 'What happened to a mail: sent, delivered, opened, clicked, bounced…',
  },
  {
    family: 'contact',
    label: 'Contact events',
    hint: 'A contact created, changed, subscribed, unsubscribed or deleted.',
  },
  { family: 'campaign', label: 'Campaign events', hint: 'A campaign started sending, finished or was cancelled.' },
  {
    family: 'transport',
    label: 'Transport events',
    hint: 'One of your transports started failing over to the next one, or recovered.',
  },
] as const;

const typesOf = (family: string) => WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith(`${family}.`));
const isFixed = (p: string) =>
  p === '*' || (WEBHOOK_EVENT_TYPES as readonly string[]).includes(p) || FAMILIES.some((f) => p === `${f.family}.*`);

/**
 * Picks the event types of an endpoint (`events` of `POST /webhook-endpoints`): "every event" (`*`),
 * a whole family (`email.*`) or single types with checkboxes, and any other names (events tracked
 * with /v1/track, `segment.<slug>.entry`) typed in. The server checks the list again.
 */
export function EventPicker({
  value,
  onChange,
  error,
}: {
  value: string[];
  onChange: (v: string[]) => void;
  error?: string;
}) {
  const all = value.includes('*');
  const set = (v: string[]) => onChange([...new Set(v)]);
  const toggle = (p: string, on: boolean) => set(on ? [...value, p] : value.filter((x) => x !== p));
  const others = value.filter((p) => !isFixed(p));
  return (
    <Fieldset legend="Events to send" variant="unstyled" data-testid="event-picker">
      <Stack gap="sm">
        <Checkbox
          label="Every event, including new types added later"
          checked={all}
          onChange={(e) => set(e.currentTarget.checked ? ['*'] : [])}
        />
        {!all && (
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
            {FAMILIES.map((f) => {
              const whole = value.includes(`${f.family}.*`);
              return (
                <Stack key={f.family} gap={6}>
                  <Checkbox
                    label={
                      <Text fw={500} size="sm">
                        {f.label}: all
                      </Text>
                    }
                    description={f.hint}
                    checked={whole}
                    onChange={(e) =>
                      set(
                        e.currentTarget.checked
                          ? [...value.filter((p) => !p.startsWith(`${f.family}.`)), `${f.family}.*`]
                          : value.filter((p) => p !== `${f.family}.*`),
                      )
                    }
                  />
                  {typesOf(f.family).map((t) => (
                    <Checkbox
                      key={t}
                      ml="md"
                      size="xs"
                      label={t}
                      checked={whole || value.includes(t)}
                      disabled={whole}
                      onChange={(e) => toggle(t, e.currentTarget.checked)}
                    />
                  ))}
                </Stack>
              );
            })}
          </SimpleGrid>
        )}
        {!all && (
          <TagsInput
            label="Other events"
            description="Names of events you track with /v1/track (e.g. signup), or segment moves such as segment.trial.entry. Press Enter after each."
            value={others}
            onChange={(v) => set([...value.filter(isFixed), ...v])}
            clearable
          />
        )}
        {error && (
          <Text c="red.8" size="sm" role="alert">
            {error}
          </Text>
        )}
      </Stack>
    </Fieldset>
  );
}
