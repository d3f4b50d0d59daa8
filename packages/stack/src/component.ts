import type { SpawnSpec } from './processes.ts';
import type { Reporter } from './progress.ts';

export interface LaunchSpec extends SpawnSpec {
  /** A string unique to this stack in the process's command line (see isOurProcess). */
  readonly marker: string;
  /** Folders made for this start only, removed when it stops (scratch data of a test run). */
  readonly scratchDirs?: readonly string[];
}

export interface PrepareOptions {
  /** Start on empty data folders of their own, removed at stop, leaving the kept data alone. */
  readonly scratchData: boolean;
}

/** One server of the local stack, from download to readiness. */
export interface Component {
  readonly name: string;
  /** Whether `stack up` fails when this component cannot run. */
  readonly required: boolean;
  /**
   * Started but not waited for: the pipeline runs without it (Jaeger, whose first start builds
   * for minutes); `waitForComponent` waits for it where it is needed.
   */
  readonly background: boolean;
  /** The version this checkout pins, recorded at start and compared on join; null: unpinned. */
  readonly version: string | null;
  /** Ports bound on 127.0.0.1; any of them taken by another process stops the start. */
  readonly ports: readonly number[];
  /** What runs where, for people and for `stack status --json`. */
  readonly endpoints: Readonly<Record<string, string>>;
  readonly logFile: string;
  /** Why this optional component is skipped on this machine, or null to run it. */
  skipReason(): Promise<string | null>;
  /** Downloads or builds into the cache; a no-op when the cache is complete. */
  install(report: Reporter): Promise<void>;
  /** Writes configuration and state folders, and says how to launch the server. */
  prepare(report: Reporter, options: PrepareOptions): Promise<LaunchSpec>;
  /** One real readiness probe (metadata, an API answer), never just an open port. */
  isReady(): Promise<boolean>;
  /** While it runs but is not ready: what it is doing, e.g. a build's count of compiled packages. */
  progress?(): Promise<string | null>;
}
