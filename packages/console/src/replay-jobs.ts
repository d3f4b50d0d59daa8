import { randomBytes } from 'node:crypto';
import { HookstreamError } from '@hookstream/contracts';
import type { DlqSelection, ReplaySummary } from '@hookstream/replay';
import type { ConsoleBackend } from './console-backend.ts';
import { ConsoleError } from './errors.ts';

/** A replay started from the console, as its progress page shows it. */
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
 * Replays run in the background so the browser gets a progress page at once. One at a time per
 * subscriber is the replay lease's rule, across every console and `dlq replay` (a second run
 * fails with REPLAY_LEASE_HELD naming the holder, shown as the job's error); the check of this
 * console's own running jobs only answers its users at once.
 */
export class ReplayJobs {
  readonly #backend: ConsoleBackend;
  readonly #jobs = new Map<string, ReplayJob>();

  constructor(backend: ConsoleBackend) {
    this.#backend = backend;
  }

  start(request: {
    readonly subscriber: string;
    readonly selection: DlqSelection;
    readonly dryRun: boolean;
    readonly again: boolean;
    readonly operator: string;
  }): ReplayJob {
    for (const j of this.#jobs.values())
      if (j.subscriber === request.subscriber && j.state === 'running' && !j.dryRun && !request.dryRun)
        throw new ConsoleError(
          'REPLAY_RUNNING',
          `a replay of ${request.subscriber}'s dead letters is still running (${j.id})`,
          true,
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
    this.#backend
      .replay({
        ...request,
        tool: 'console',
        onProgress: (done, total) => {
          job.done = done;
          job.total = total;
        },
        onWarning: (message) => job.warnings.push(message),
      })
      .then(
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
