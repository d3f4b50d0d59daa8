import type { SubscriberName } from '@hookstream/contracts';
import type { ReplayTool } from './replay-lease.ts';
import type { DlqSelection } from './selection.ts';

// What a replay is asked and answers, shared by its runner (the replay service) and the tools
// that start one (`hookstream dlq replay`, the console), which a package cannot import.

export interface ReplayRequest {
  readonly subscriber: SubscriberName;
  readonly selection: DlqSelection;
  /** Replay records the replay log already names. */
  readonly again: boolean;
  /** Read and plan, write nothing. */
  readonly dryRun: boolean;
  /** Who replays: recorded on each tier record, in the replay log and the attempt log. */
  readonly operator: string;
  /** Which tool replays, named in its lease (default `cli`). */
  readonly tool?: ReplayTool | undefined;
  /**
   * When the operator asked for this replay (ms since the epoch); default: when the call began.
   * `again` skips what another run replayed since then. The CLI passes its process's start: two
   * runs started together agree on it however long each took to load and read the DLQ.
   */
  readonly askedAtMs?: number | undefined;
  /** Records per second; unlimited when absent. */
  readonly ratePerSecond?: number | undefined;
  /** Called after each acknowledged chunk. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Called when writing an informational record failed (the attempt log). */
  readonly onWarning?: (message: string) => void;
}

/** One dead letter in a replay's report. */
export interface ReplayItem {
  readonly eventId: string | null;
  readonly dlq: string;
  /** replayed/would-replay: where the copy went; skipped: the earlier replay; unreplayable: why. */
  readonly detail: string;
}

export interface ReplaySummary {
  readonly replayId: string;
  readonly subscriber: string;
  readonly dryRun: boolean;
  readonly topic: string;
  readonly selected: number;
  /** Written to tier 1 (dry run: would be). */
  readonly replayed: readonly ReplayItem[];
  readonly alreadyReplayed: readonly ReplayItem[];
  readonly unreplayable: readonly ReplayItem[];
}

/**
 * Since when another run's replays count as raced (ReplayPlan's `again` skips them): when the
 * operator asked, never later than `nowMs`. Taken when the call began, a run slowed down by a
 * busy machine would count the first chunks of a run started with it as earlier replays and send
 * them again.
 */
export function raceStartMs(request: Pick<ReplayRequest, 'askedAtMs'>, nowMs: number): number {
  const asked = request.askedAtMs;
  return asked === undefined || !Number.isFinite(asked) ? nowMs : Math.min(asked, nowMs);
}
