import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, generateApiTypes } from '../../scripts/gen-api.js';

describe('the dashboard API types', () => {
  it('match the server routes: run npm run gen:api after changing a route schema', async () => {
    const committed = await readFile(API_TYPES_FILE, 'utf8');
    const fresh = await generateApiTypes();
    // The diff vitest prints shows which route drifted.
    expect(committed, 'web/src/api/schema.d.ts is stale: run npm run gen:api').toBe(fresh);
  });
});
