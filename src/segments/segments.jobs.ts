import type { TaskFactory } from '../worker/tasks.js';

/** Background tasks of segments: tracked membership recompute. */
export const segmentsTasks: TaskFactory = (deps) => {
  void deps;
  return {};
};

/** Crontab lines of this feature (Graphile Worker format). */
export const segmentsCrontab: string[] = [];
