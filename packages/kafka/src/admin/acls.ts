import type { AclGrant, AclOperation } from '@hookstream/contracts';
import type { AclEntry, Admin } from 'kafkajs';

// kafkajs's ACL enums, spelled out: it is CommonJS and Node's ESM loader does not see them.
const RESOURCE = { topic: 2, group: 3, 'transactional-id': 5 } as const;
const PATTERN = { literal: 3, prefixed: 4 } as const;
const OPERATION: Record<AclOperation, number> = {
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  DESCRIBE: 8,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
};
const ALLOW = 3;

/** Kafka ACL entries allowing `principal` (e.g. `User:pusher`) what the grants list, from any host. */
export function aclEntries(principal: string, grants: readonly AclGrant[]): AclEntry[] {
  return grants.flatMap((grant) =>
    grant.operations.map(
      (operation) =>
        ({
          principal,
          host: '*',
          resourceType: RESOURCE[grant.resource],
          resourceName: grant.name,
          resourcePatternType: PATTERN[grant.pattern],
          operation: OPERATION[operation],
          permissionType: ALLOW,
        }) as AclEntry,
    ),
  );
}

export async function createAcls(
  admin: Admin,
  principal: string,
  grants: readonly AclGrant[],
): Promise<void> {
  await admin.createAcls({ acl: aclEntries(principal, grants) });
}
