import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import { describeFailure, fieldLabel, fieldSentence } from './messages';

const failure = (code: string, status: number, message: string, extra = {}) =>
  describeFailure({ code, status, message, fieldErrors: [], ...extra });

describe("the dashboard's words for failures", () => {
  it('says zod field problems as sentences, naming the field', () => {
    const say = (field: string, code: string, message: string) => fieldSentence({ field, code, message });
    expect(say('name', 'too_small', 'Too small: expected string to have >=1 characters')).toBe('Name is required.');
    expect(say('subject', 'invalid_type', 'Invalid input: expected string, received undefined')).toBe(
      'Subject is required.',
    );
    expect(say('password', 'too_small', 'Too small: expected string to have >=8 characters')).toBe(
      'Password must have at least 8 characters.',
    );
    expect(say('name', 'too_big', 'Too big: expected string to have <=100 characters')).toBe(
      'Name must have at most 100 characters.',
    );
    expect(say('limit', 'too_big', 'Too big: expected number to be <=100')).toBe('Limit must be at most 100.');
    expect(say('email', 'invalid_string', 'Invalid email address')).toBe(
      'Email must be an email address, like name@example.com.',
    );
    expect(say('tracking', 'invalid_enum_value', 'Invalid option: expected one of "ENABLED"|"DISABLED"')).toBe(
      'Tracking must be one of: ENABLED, DISABLED.',
    );
    expect(say('count', 'invalid_type', 'Invalid input: expected number, received string')).toBe(
      'Count must be a number.',
    );
    // Pigeon's own sentences stay, finished with a full stop.
    expect(say('password', 'too_small', 'Password must be at least 8 characters')).toBe(
      'Password must be at least 8 characters.',
    );
    expect(fieldLabel('condition.groups.0.filters.1.fromName')).toBe('From name');
    expect(fieldLabel('data.firstName')).toBe('First name');
  });

  it('gives each common code of the API a sentence, never the code itself', () => {
    expect(failure('INVALID_CREDENTIALS', 401, 'Invalid email or password').message).toBe(
      'That email and password do not match. Check both, or reset the password.',
    );
    const conflict = failure('CONFLICT', 409, 'Another contact in this project already uses this email');
    expect(conflict).toMatchObject({
      title: 'Cannot do this now',
      message: 'Another contact in this project already uses this email.',
    });
    expect(failure('RESOURCE_NOT_FOUND', 404, 'Template not found').message).toBe(
      'Template was not found: it may have been deleted, or belong to another project.',
    );
    expect(failure('INTERNAL_SERVER_ERROR', 500, 'Unexpected error').message).toMatch(/^The server could not finish/);
    for (const code of ['UNAUTHORIZED', 'FORBIDDEN', 'VALIDATION_ERROR', 'RATE_LIMIT_EXCEEDED', 'BAD_REQUEST']) {
      const d = failure(code, 400, 'x');
      expect(d.title).not.toMatch(/Something went wrong|[A-Z]{3,}_/);
    }
  });

  it('puts a refused sender domain at the From field', () => {
    const d = failure('INTERNAL_SERVER_ERROR', 403, 'The domain acme.test of "from" is not verified for this project', {
      details: { reason: 'unverified_domain', field: 'from', domain: 'acme.test' },
    });
    expect(d.title).toBe('Sender domain not verified');
    expect(d.message).not.toMatch(/HTTP|INTERNAL/);
    expect(d.fieldErrors).toEqual([expect.objectContaining({ field: 'from', code: 'unverified_domain' })]);
  });

  it('keeps the server message, code and field codes on the ApiError for the Details', () => {
    const e = new ApiError({
      status: 422,
      code: 'VALIDATION_ERROR',
      message: 'Invalid body: name: Too small: expected string to have >=1 characters',
      fieldErrors: [{ field: 'name', code: 'too_small', message: 'Too small: expected string to have >=1 characters' }],
    });
    expect(e.message).toBe('Name is required.');
    expect(e.title).toBe('One value needs fixing');
    expect(e.serverMessage).toMatch(/^Invalid body/);
    expect(e.fieldErrors[0]).toEqual({ field: 'name', code: 'too_small', message: 'Name is required.' });
  });
});
