import { HookstreamError } from '@hookstream/contracts';
export type CatalogErrorCode =
  | 'BAD_OPTION'
  | 'BAD_DEFINITION'
  | 'UNKNOWN_SUBSCRIBER'
  | 'NOT_MANAGED'
  | 'NO_SECRETS_KEY'
  | 'BAD_SECRETS_KEY'
  | 'WRONG_SECRETS_KEY'
  | 'SECRET_UNREADABLE'
  | 'NO_SECRET'
  | 'BAD_SECRET'
  /** A version-1 seal (bound to the name only): `subscribers reseal` moves it to the new binding. */
  | 'OLD_SEAL'
  /** A managed header without a sealed value yet (`subscribers header set`). */
  | 'NO_HEADER_VALUE'
  | 'BAD_HEADER_VALUE'
  /** A managed credential (client secret, client key) has no sealed value yet. */
  | 'NO_CREDENTIAL_VALUE'
  /** A credential value that is not one (an empty secret, a key that is no PEM private key). */
  | 'BAD_CREDENTIAL_VALUE'
  /** A record that a running instance cannot read (an older fleet): upgrade the fleet first. */
  | 'FLEET_TOO_OLD'
  /** An existing subscriber's `tenant` differs from its record's: delete it and create it again. */
  | 'TENANT_CHANGED'
  /** The name is held (by another tenant, or left bound after a delete): the API's 409 `name_unavailable`. */
  | 'NAME_UNAVAILABLE'
  /** A tenant's delete: the record is gone, the fleet has not left the group yet; delete again. */
  | 'GROUP_IN_USE'
  /**
   * The change was made, but its audit record could not be written (hookstream.audit): the trail
   * misses it. Running the command again does not help (an unchanged apply writes no record).
   */
  | 'AUDIT_NOT_WRITTEN'
  /**
   * A conditional write (writeIfRevision, removeIfRevision) expected another revision than the
   * one in effect: nothing changed (RevisionMismatchError carries the current one; the API's 412).
   */
  | 'REVISION_MISMATCH'
  /** A conditional write landed, but reading the catalog back did not show it in effect. */
  | 'WRITE_UNCONFIRMED'
  /** A rewind's target that does not parse or names no partition of the events topic. */
  | 'BAD_REWIND';

/** A catalog problem; `canRetry` says whether doing the same thing again unchanged could succeed. */
export class CatalogError extends HookstreamError<CatalogErrorCode> {}
