import { createTheme, NavLink } from '@mantine/core';

/** localStorage key of the colour scheme chosen in the header: `light`, `dark` or `auto` (the system's). */
export const COLOR_SCHEME_KEY = 'pigeon-color-scheme';

/**
 * The dashboard's one theme. Filled and outline colours use shade 8: it keeps white text on indigo and
 * red, and red text on white, above WCAG AA contrast (4.5:1); Mantine's default shade 6 is under it.
 */
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: 'md',
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  headings: { fontWeight: '650' },
  components: {
    Paper: { defaultProps: { withBorder: true, radius: 'md' } },
    Card: { defaultProps: { withBorder: true, radius: 'md' } },
    Badge: { defaultProps: { radius: 'sm' } },
    // Links are underlined: told apart from the text around them by more than colour (WCAG 1.4.1);
    // in dark mode the link colour alone is under 3:1 against the text (axe link-in-text-block).
    Anchor: { defaultProps: { underline: 'always' } },
    // The active sidebar entry: darkest indigo text on the palest indigo, hovered or not (the light
    // variant's hover colour leaves its text under 4.5:1); the reverse in dark mode (global.css).
    NavLink: NavLink.extend({
      vars: () => ({
        root: {
          '--nl-bg': 'var(--pigeon-nav-active-bg)',
          '--nl-hover': 'var(--pigeon-nav-active-hover)',
          '--nl-color': 'var(--pigeon-nav-active-color)',
        },
        children: {},
      }),
    }),
    // Mantine's close buttons have no accessible name of their own.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close dialog' } } },
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } } },
  },
});
