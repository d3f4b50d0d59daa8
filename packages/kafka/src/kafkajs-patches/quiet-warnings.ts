/**
 * kafkajs 2.2.4 arms a timer whose delay is an unset time minus now (about −1.8e12 ms), and
 * Node warns about it, three lines at a time, in every process, with nothing for a user to do.
 * This drops that one warning by name; every other warning is emitted as before.
 */
export function quietKafkajsTimeoutWarning(): void {
  const emit = process.emitWarning;
  if ((emit as { hookstreamQuiet?: true }).hookstreamQuiet) return;
  const quiet = function emitWarning(this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const type =
      warning instanceof Error
        ? warning.name
        : typeof rest[0] === 'string'
          ? rest[0]
          : (rest[0] as { type?: unknown } | undefined)?.type;
    if (type === 'TimeoutNegativeWarning') return;
    // biome-ignore lint/suspicious/noExplicitAny: emitWarning's overloads cannot be spread into.
    (emit as any).call(process, warning, ...rest);
  };
  process.emitWarning = Object.assign(quiet, {
    hookstreamQuiet: true as const,
  }) as typeof process.emitWarning;
}
