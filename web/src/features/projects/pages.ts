/** The project pages, one lazily loaded chunk. */
export { HomeRedirect } from './HomeRedirect';
export { OverviewPage } from './OverviewPage';
export { ProjectsPage } from './ProjectsPage';
export { WelcomePage } from './WelcomePage';
