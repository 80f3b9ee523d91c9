import { NumberInput, type NumberInputProps } from '@mantine/core';

/** Mantine's NumberInput, in a module of its own so that FilterRow can load it when a number is asked for. */
export function NumberField(props: NumberInputProps) {
  return <NumberInput {...props} />;
}
