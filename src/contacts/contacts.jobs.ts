import type { TaskFactory } from '../worker/tasks.js';

/** Background tasks of contacts: CSV import and bulk actions. */
export const contactsTasks: TaskFactory = (deps) => {
  void deps;
  return {};
};

/** Crontab lines of this feature (Graphile Worker format). */
export const contactsCrontab: string[] = [];
