/** How many errors deep a description follows causes: past this, a cycle or noise. */
const MAX_LINKS = 6;
/** A log line's share for one error chain. */
const MAX_CHARS = 2_000;

/**
 * An error and what caused it, on one line: `Outer: message ← Inner: message`. Follows `cause`,
 * kafkajs's `originalError` and the `errors` of an aggregate (kafkajs's createTopics refusals
 * arrive so), so a 500's log names the broker's reason and not only the wrapper's.
 */
export function describeErrorChain(err: unknown): string {
  const links: string[] = [];
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  for (let next = queue.shift(); next !== undefined && links.length < MAX_LINKS; next = queue.shift()) {
    if (seen.has(next)) continue;
    seen.add(next);
    if (!(next instanceof Error)) {
      links.push(String(next));
      continue;
    }
    links.push(`${next.name}: ${next.message}`);
    const e = next as Error & { originalError?: unknown; errors?: unknown };
    if (Array.isArray(e.errors)) queue.push(...e.errors);
    const cause = e.originalError ?? e.cause;
    if (cause !== undefined) queue.push(cause);
  }
  const line = links.join(' ← ');
  return line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS)}…` : line;
}
