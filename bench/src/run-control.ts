/** What every phase of a long benchmark is given: where to say how it goes, and when to stop. */
export interface RunControl {
  /** One line per step, for people (stderr). */
  readonly progress: (line: string) => void;
  /** Aborted on Ctrl-C: waits end early and throw, so the cleanup runs. */
  readonly signal?: AbortSignal | undefined;
}
