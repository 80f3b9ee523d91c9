import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { AppError } from '../http/errors.js';
import { addJobSql } from '../worker/graphile.js';
import { defineJob } from '../worker/jobs.js';
import { computeSegment, recordComputeError } from './segments.compute.js';

/**
 * Background jobs of segments (tracked dynamic segments are recomputed every 5 minutes).
 * - `segments:compute-tracked` (cron): queues one `segments:compute` per DYNAMIC segment, set-based;
 *   the job key makes a still-pending job absorb the next tick instead of piling up.
 * - `segments:compute {segmentId}`: a tracked segment is computed (entries, exits, events); an
 *   untracked one has its cached `memberCount` refreshed. The segment row lock inside
 *   `computeSegment` makes a job that runs twice, or beside `POST /segments/:id/compute`, harmless.
 *   A segment whose stored condition no longer compiles is skipped with an error in the log and the
 *   reason in `segments.compute_error` (the compiler refuses an over-limit tree before building it), and
 *   so is one stopped by `SEGMENT_COMPUTE_TIMEOUT_MS` (its transaction's `statement_timeout`).
 */

export const computeSegmentJob = defineJob({
  name: 'segments:compute',
  payload: z.object({ segmentId: z.guid() }),
  maxAttempts: 3,
  run: async (deps, { segmentId }, helpers) => {
    const r = await deps.db.execute<{ project_id: string }>(
      sql`select project_id from segments where id::text = ${segmentId}`,
    );
    const projectId = r.rows[0]?.project_id;
    if (!projectId) return; // deleted since it was queued
    try {
      const res = await computeSegment(deps, projectId, segmentId, {
        statementTimeoutMs: deps.config.SEGMENT_COMPUTE_TIMEOUT_MS,
      });
      if (res.entered || res.exited)
        helpers.logger.info(
          `segment ${segmentId}: ${res.entered} entered, ${res.exited} exited, ${res.memberCount} members`,
        );
    } catch (err) {
      // Stopped by SEGMENT_COMPUTE_TIMEOUT_MS: a retry would run as long again. Say so on the segment;
      // the next cron tick tries again.
      if (
        (err as { code?: string; cause?: { code?: string } }).code === '57014' ||
        (err as { cause?: { code?: string } }).cause?.code === '57014'
      ) {
        const seconds = deps.config.SEGMENT_COMPUTE_TIMEOUT_MS / 1000;
        helpers.logger.error(`segment ${segmentId} not computed: stopped after ${seconds} s`);
        await recordComputeError(
          deps,
          segmentId,
          `The compute took longer than ${seconds} s (SEGMENT_COMPUTE_TIMEOUT_MS) and was stopped; simplify the condition or raise the limit`,
        );
        return;
      }
      // A stored condition that no longer compiles (it names a deleted segment, or was saved before the
      // reference limits and goes past them) will not heal by retrying: skip it, say why, keep the reason.
      if (err instanceof AppError && err.status < 500) {
        helpers.logger.error(`segment ${segmentId} not computed: ${err.message}`);
        await recordComputeError(deps, segmentId, err.message);
        return;
      }
      throw err;
    }
  },
});

export const computeTrackedSegmentsJob = defineJob({
  name: 'segments:compute-tracked',
  payload: z.object({}),
  run: async (deps) => {
    await deps.db.execute(sql`
      select ${addJobSql(computeSegmentJob.name, sql`json_build_object('segmentId', s.id)`, {
        maxAttempts: computeSegmentJob.defaults.maxAttempts ?? null,
        jobKey: sql`'segments:compute:' || s.id::text`,
      })}
      from segments s where s.type = 'DYNAMIC'`);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const segmentsJobs = [computeTrackedSegmentsJob, computeSegmentJob];

/** Crontab lines of this feature (Graphile Worker format). */
export const segmentsCrontab: string[] = [`*/5 * * * * ${computeTrackedSegmentsJob.name}`];
