/** The project pages, one lazily loaded chunk (the welcome screen, with its form, is its own: app/router.tsx). */
export { HomeRedirect } from './HomeRedirect';
export { OverviewPage } from './OverviewPage';
export { ProjectsPage } from './ProjectsPage';
