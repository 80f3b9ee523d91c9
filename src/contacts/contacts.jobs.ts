import type { JobHelpers } from 'graphile-worker';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { defineJob } from '../worker/jobs.js';
import { runBulk, type BulkKind } from './bulk.js';
import { ImportFileError, importCsv } from './import.js';
import { compactContactCounts } from './contacts.repo.js';
import * as jobs from './jobs.repo.js';
import type { Transaction } from '../db/tx.js';

/** Thrown inside the job transaction when another run already finished the job: roll back. */
class AlreadyDone extends Error {}

/**
 * Runs a taken job: `work` does its writes in one transaction that also marks the job completed, so
 * either all of its writes and its result are committed, or none. A user-facing problem
 * ({@link ImportFileError}) fails the job for good; anything else is retried by Graphile Worker and
 * fails the job on the last attempt.
 */
async function runBackgroundJob(
  deps: Deps,
  helpers: JobHelpers,
  jobId: string,
  work: (tx: Transaction, job: jobs.TakenJob) => Promise<jobs.JobResult>,
): Promise<void> {
  const job = await jobs.take(deps.db, jobId, deps.clock.now());
  if (!job) return;
  try {
    await deps.db.transaction(async (tx) => {
      const result = await work(tx, job);
      if (!(await jobs.complete(tx, job.id, result, deps.clock.now()))) throw new AlreadyDone();
    });
  } catch (err) {
    if (err instanceof AlreadyDone) return;
    if (err instanceof ImportFileError) {
      await jobs.fail(deps.db, job.id, err.message, deps.clock.now());
      return;
    }
    if (helpers.job.attempts >= helpers.job.max_attempts) {
      await jobs.fail(
        deps.db,
        job.id,
        `Failed after ${helpers.job.attempts} attempts: ${(err as Error).message}`,
        deps.clock.now(),
      );
    }
    throw err;
  }
}

/** The Graphile payload of both jobs: the `background_jobs` row, which holds the input. */
const backgroundJobPayload = z.object({ jobId: z.guid() });

/** `contacts:import {jobId}`: the CSV import of a `background_jobs` row (jobs.service.ts queueImport). */
export const importContactsJob = defineJob({
  name: 'contacts:import',
  payload: backgroundJobPayload,
  run: (deps, { jobId }, helpers) =>
    runBackgroundJob(deps, helpers, jobId, async (tx, job) => {
      const file = Buffer.from(String(job.input.file ?? ''), 'base64');
      const mapping = job.input.mapping as Record<string, string> | null | undefined;
      return importCsv(
        tx,
        job.projectId,
        file,
        deps.clock.now(),
        (p) => jobs.setProgress(deps.db, job.id, p),
        mapping ?? undefined,
      );
    }),
});

/** `contacts:bulk {jobId}`: a bulk action of a `background_jobs` row (jobs.service.ts queueBulk). */
export const bulkContactsJob = defineJob({
  name: 'contacts:bulk',
  payload: backgroundJobPayload,
  run: (deps, { jobId }, helpers) =>
    runBackgroundJob(deps, helpers, jobId, async (tx, job) => {
      const ids = Array.isArray(job.input.contactIds) ? (job.input.contactIds as string[]) : [];
      // Jobs queued before the source was kept were all API calls as far as anyone can tell.
      const source = job.input.source === 'dashboard' ? 'dashboard' : 'api';
      return runBulk(tx, job.projectId, job.kind as BulkKind, ids, deps.clock.now(), { source });
    }),
});

/**
 * `contacts:compact-counts` (cron, every 5 minutes): folds each project's `contact_counts` deltas
 * into one row, so the count a contact list reads stays a sum over a few rows however many imports
 * and new contacts the project had.
 */
export const compactContactCountsJob = defineJob({
  name: 'contacts:compact-counts',
  payload: z.object({}),
  maxAttempts: 1,
  run: async (deps) => {
    await compactContactCounts(deps.db);
  },
});

/** The jobs of this feature, for the worker's registry (worker/tasks.ts). */
export const contactsJobs = [importContactsJob, bulkContactsJob, compactContactCountsJob];

/** Crontab lines of this feature (Graphile Worker format). */
export const contactsCrontab: string[] = [`*/5 * * * * ${compactContactCountsJob.name}`];
