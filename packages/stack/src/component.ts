import type { SpawnSpec } from './processes.ts';
import type { Reporter } from './progress.ts';

export interface LaunchSpec extends SpawnSpec {
  /** A string unique to this stack in the process's command line (see isOurProcess). */
  readonly marker: string;
}

/** One server of the local stack, from download to readiness. */
export interface Component {
  readonly name: string;
  /** Whether `stack up` fails when this component cannot run. */
  readonly required: boolean;
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
  prepare(report: Reporter): Promise<LaunchSpec>;
  /** One real readiness probe (metadata, an API answer), never just an open port. */
  isReady(): Promise<boolean>;
}
