import { describe, expect, it } from 'vitest';
import { proposeMapping, resolveMapping } from './import-mapping.js';

// Issue 38: a language column fills the reserved data.locale.
describe('import mapping of the language column', () => {
  it('maps the first locale or language header to data:locale, later ones to their own key', () => {
    expect(proposeMapping(['Email', 'Preferred language', 'lang'])).toEqual(['email', 'data:locale', 'data:lang']);
    expect(proposeMapping(['email', 'LOCALE'])).toEqual(['email', 'data:locale']);
    expect(proposeMapping(['email', 'language_code', 'city'])).toEqual(['email', 'data:locale', 'data:city']);
  });
  it('lets a mapping choose another column for data:locale, which then leaves the automatic one alone', () => {
    expect(resolveMapping(['email', 'language', 'lang2'], { lang2: 'data:locale' })).toEqual([
      'email',
      'data:language',
      'data:locale',
    ]);
  });
});
