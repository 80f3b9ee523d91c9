import type { TaskFactory } from '../worker/tasks.js';

/** Background tasks of sending: one job per email (render, MIME, DKIM, transport). */
export const emailsTasks: TaskFactory = (deps) => {
  void deps;
  return {};
};

/** Crontab lines of this feature (Graphile Worker format). */
export const emailsCrontab: string[] = [];
