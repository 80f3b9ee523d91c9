import { Textarea } from '@mantine/core';

/**
 * The HTML body editor of the composer (a monospace textarea that grows with its content), for the
 * campaign's body and for a variant's own.
 */
export function BodyField({
  label,
  value,
  onChange,
  error,
  minRows = 10,
  required,
  description = "Variables: {{firstName}}, {{plan ?? 'free'}} …",
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  minRows?: number;
  required?: boolean;
  description?: string;
}) {
  return (
    <Textarea
      label={label}
      description={description}
      required={required}
      autosize
      minRows={minRows}
      maxRows={24}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
    />
  );
}
