import type { TaskFactory } from '../worker/tasks.js';

/** Background tasks of sender domains: the 5-minute re-check of pending domains. */
export const domainsTasks: TaskFactory = (deps) => {
  void deps;
  return {};
};

/** Crontab lines of this feature (Graphile Worker format). */
export const domainsCrontab: string[] = [];
