/**
 * The shared phase's slowest files, longest first, from the "ten slowest files" table `npm test`
 * prints (a clean-clone `.ci/run` of 2026-12-06). The phase runs three files at a time and lasts
 * as long as its busiest lane, so these start first: one of them starting last would leave the
 * other lanes idle while it runs. Update the list from that table when it changes.
 */
export const SLOWEST_FIRST: readonly string[] = [
  'test/integration/management-api-openapi.test.ts',
  'test/integration/fleet.test.ts',
  'test/integration/subscribers-cli.test.ts',
  'test/integration/lost-gaps.test.ts',
  'test/integration/rolling-upgrade.test.ts',
  'test/integration/pull.test.ts',
  'test/integration/pusher-delivery.test.ts',
  'test/integration/rewind-marker.test.ts',
  'test/integration/audit-trail.test.ts',
  'test/integration/attempts-count-up.test.ts',
];

/** Where `path` (absolute or from the root) stands in SLOWEST_FIRST; the others after, in their order. */
export function slowRank(path: string): number {
  const i = SLOWEST_FIRST.findIndex((f) => path.endsWith(`/${f}`) || path === f);
  return i === -1 ? SLOWEST_FIRST.length : i;
}
