import { createContext, useContext } from 'react';
import type { ProjectSummary } from '../../api/types';
import type { Permissions } from './permissions';

/** The project of the current URL (`/p/:projectId/…`) and what the signed-in user may do in it. */
export interface ProjectContextValue {
  project: ProjectSummary;
  can: Permissions;
}

export const ProjectContext = createContext<ProjectContextValue | null>(null);

/**
 * The current project; only inside `/p/:projectId/…` routes (ProjectLayout provides it).
 * @throws Error when used outside them (a programming error).
 */
export function useProject(): ProjectContextValue {
  const value = useContext(ProjectContext);
  if (!value) throw new Error('useProject() is only available inside /p/:projectId routes');
  return value;
}
