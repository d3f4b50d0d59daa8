import { randomBytes } from 'node:crypto';
import { HookstreamError } from '@hookstream/contracts';
import type { DlqSelection, ReplayRequest, ReplaySummary, ReplayTool } from '@hookstream/replay';
import { ManagementError } from './errors.ts';

/** Runs a replay (the console's backend, the management API's replay with its audit record). */
export type ReplayRunner = (request: ReplayRequest) => Promise<ReplaySummary>;

/** A replay started from the console or the API, as its progress page or `GET /v1/jobs/{id}` shows it. */
export interface ReplayJob {
  readonly id: string;
  readonly subscriber: string;
  readonly dryRun: boolean;
  readonly operator: string;
  readonly startedAt: string;
  state: 'running' | 'done' | 'failed';
  done: number;
  total: number | null;
  summary: ReplaySummary | null;
  error: string | null;
  readonly warnings: string[];
}

/** Jobs kept for their pages; the oldest finished ones go first. */
const MAX_JOBS = 100;

/**
 * Replays run in the background so the caller gets a job at once. One at a time per subscriber
 * is the replay lease's rule, across every console, API and `dlq replay` (a second run fails with
 * REPLAY_LEASE_HELD naming the holder, shown as the job's error); the check of this process's own
 * running jobs only answers its callers at once.
 */
export class ReplayJobs {
  readonly #backend: { replay: ReplayRunner };
  readonly #tool: ReplayTool;
  readonly #jobs = new Map<string, ReplayJob>();

  constructor(backend: { replay: ReplayRunner }, tool: ReplayTool = 'console') {
    this.#backend = backend;
    this.#tool = tool;
  }

  start(
    request: {
      readonly subscriber: string;
      readonly selection: DlqSelection;
      readonly dryRun: boolean;
      readonly again: boolean;
      readonly operator: string;
    },
    run: ReplayRunner = (r) => this.#backend.replay(r),
  ): ReplayJob {
    for (const j of this.#jobs.values())
      if (j.subscriber === request.subscriber && j.state === 'running' && !j.dryRun && !request.dryRun)
        throw new ManagementError(
          'replay_running',
          `a replay of ${request.subscriber}'s dead letters is still running (${j.id})`,
          { canRetry: true },
        );
    this.#evict();
    const job: ReplayJob = {
      id: `job_${randomBytes(9).toString('base64url')}`,
      subscriber: request.subscriber,
      dryRun: request.dryRun,
      operator: request.operator,
      startedAt: new Date().toISOString(),
      state: 'running',
      done: 0,
      total: null,
      summary: null,
      error: null,
      warnings: [],
    };
    this.#jobs.set(job.id, job);
    run({
      ...request,
      tool: this.#tool,
      askedAtMs: Date.parse(job.startedAt),
      onProgress: (done, total) => {
        job.done = done;
        job.total = total;
      },
      onWarning: (message) => job.warnings.push(message),
    }).then(
      (summary) => {
        job.summary = summary;
        job.total = summary.replayed.length;
        job.done = summary.replayed.length;
        job.state = 'done';
      },
      (err: unknown) => {
        job.error =
          err instanceof HookstreamError
            ? `${err.code}: ${err.message}`
            : err instanceof Error
              ? err.message
              : String(err);
        job.state = 'failed';
      },
    );
    return job;
  }

  get(id: string): ReplayJob | undefined {
    return this.#jobs.get(id);
  }

  /** Resolves when no job is running (for a clean shutdown and for tests). */
  async settled(): Promise<void> {
    while ([...this.#jobs.values()].some((j) => j.state === 'running'))
      await new Promise((resolve) => setTimeout(resolve, 20));
  }

  #evict(): void {
    if (this.#jobs.size < MAX_JOBS) return;
    for (const [id, j] of this.#jobs)
      if (j.state !== 'running') {
        this.#jobs.delete(id);
        if (this.#jobs.size < MAX_JOBS) return;
      }
  }
}
