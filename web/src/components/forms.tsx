import { useForm, type FormErrors, type UseFormReturnType } from '@mantine/form';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../api/errors';
import { fieldSentence } from '../api/messages';
import { ErrorAlert } from './ErrorAlert';

type Values = Record<string, unknown>;

interface ApiFormOptions<V extends Values, R> {
  initialValues: V;
  /**
   * The zod rules (shared with the server where possible: api/rules.ts) checked before sending; or a
   * function that loads them, so that zod (about 25 kB gzipped) is fetched after the screen shows, not
   * with it: they are then checked on submit only.
   */
  schema?: StandardSchemaV1 | (() => Promise<StandardSchemaV1>);
  /** Sends the values; throws ApiError on failure. */
  submit: (values: V) => Promise<R>;
  onSuccess?: (result: R, values: V) => void;
}

/**
 * A form wired to an API call: validates with `schema` before sending (on submit), sends
 * with a mutation, puts the server's field errors (`error.errors[].field`) next to their fields, and
 * keeps every value when the request fails. `formError` is the failure to show above the buttons (null
 * when every problem was shown at a field).
 *
 * ```tsx
 * const { form, onSubmit, mutation, formError } = useApiForm({ initialValues: { name: '' }, schema, submit });
 * <form onSubmit={onSubmit}>
 *   <TextInput label="Name" key={form.key('name')} {...form.getInputProps('name')} />
 *   <FormError error={formError} />
 *   <Button type="submit" loading={mutation.isPending}>Save</Button>
 * </form>
 * ```
 */
export function useApiForm<V extends Values, R = unknown>(opts: ApiFormOptions<V, R>) {
  const [formError, setFormError] = useState<unknown>(null);
  const form = useForm<V>({
    mode: 'controlled',
    initialValues: opts.initialValues,
    validate: typeof opts.schema === 'object' ? sentencesResolver(opts.schema) : undefined,
    // A failure shown above the buttons is about the values sent: editing them dismisses it.
    onValuesChange: () => setFormError(null),
  });
  const mutation = useMutation({
    mutationFn: opts.submit,
    onMutate: () => setFormError(null),
    onSuccess: (result, values) => opts.onSuccess?.(result, values),
    onError: (err) => setFormError(applyServerErrors(form, err) ? null : err),
  });
  const load = typeof opts.schema === 'function' ? opts.schema : null;
  const onSubmit = form.onSubmit(async (values) => {
    if (load) {
      const errors = sentencesResolver(await load())(values);
      if (Object.keys(errors).length) return form.setErrors(errors);
    }
    mutation.mutate(values);
  });
  return { form, mutation, onSubmit, formError };
}

/**
 * Checks a form's values with a (synchronous) standard schema, e.g. the server's zod rules, and says
 * each field's first problem as a sentence for people ("Name is required.", not zod's "Too small:
 * expected string to have >=1 characters"), like the server's own field errors (api/messages.ts).
 */
export function sentencesResolver(schema: StandardSchemaV1) {
  return (values: unknown): FormErrors => {
    const result = schema['~standard'].validate(values);
    if (result instanceof Promise) throw new Error('sentencesResolver takes synchronous schemas only');
    const errors: FormErrors = {};
    for (const issue of result.issues ?? []) {
      const field = (issue.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)).join('.');
      if (errors[field]) continue;
      const code = (issue as { code?: string }).code;
      errors[field] = fieldSentence({ field, message: issue.message, code });
    }
    return errors;
  };
}

/**
 * Shows the server's field errors at the form's fields.
 * @returns true when the error had field errors and every one of them named a field of the form.
 */
export function applyServerErrors<V extends Values>(form: UseFormReturnType<V>, err: unknown): boolean {
  if (!(err instanceof ApiError) || err.fieldErrors.length === 0) return false;
  const values = form.getValues();
  let all = true;
  for (const fe of err.fieldErrors) {
    const top = fe.field.split('.')[0];
    if (top in values) form.setFieldError(fe.field, fe.message);
    else all = false;
  }
  return all;
}

/** The failure of a form that no field shows (null: nothing). */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  return <ErrorAlert error={error} />;
}
