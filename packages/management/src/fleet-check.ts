import { type InstanceStatus, recordVersionFor } from '@hookstream/contracts';
import { CatalogError, type PlannedSubscriber, unreadableRecords } from '@hookstream/subscribers';

/**
 * A record some running instance cannot read would leave that instance on the subscriber's last
 * record it read, deaf to the change: refused, naming the fields and the instances, before
 * anything is written (a dry run says it too). The statuses are read only when a write needs a
 * record version past 2.
 */
export async function refuseWhatTheFleetCannotRead(
  plan: readonly PlannedSubscriber[],
  statuses: () => Promise<InstanceStatus[]>,
): Promise<void> {
  const writes = plan
    .filter((p) => p.action !== 'unchanged')
    .map((p) => ({ version: recordVersionFor(p.definition), definition: p.definition }));
  if (writes.every((w) => w.version <= 2)) return;
  const unreadable = unreadableRecords(writes, await statuses());
  if (unreadable.length === 0) return;
  const lines = unreadable.map(
    (u) =>
      `${u.subscriber} uses ${u.fields.join(', ')} (record version ${u.version}), which ${u.instances.join(', ')} cannot read`,
  );
  throw new CatalogError(
    'FLEET_TOO_OLD',
    `${lines.join('; ')}: upgrade those instances first (docs/deployment.md); nothing was written`,
    true,
  );
}
