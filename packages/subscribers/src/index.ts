export type { ApplyAction, PlannedSubscriber } from './apply-plan.ts';
export { droppedSeals, planApply, recordsForPlan } from './apply-plan.ts';
export { type AuditChainBreak, auditChainBreaks } from './audit-chain.ts';
export { readAuditTrail } from './audit-reader.ts';
export type { AuditChange, AuditContext, ReplayCounts } from './audit-records.ts';
export {
  applyAuditRecords,
  auditRecordOf,
  canonicalJson,
  encodeAuditRecord,
  recordDigest,
  replayAuditRecord,
} from './audit-records.ts';
export type { AuditProblem, AuditSelection, RawAuditRecord } from './audit-selection.ts';
export { mayBeSelected, selectAuditRecords } from './audit-selection.ts';
export { AuditTrail, auditTopicSpec } from './audit-trail.ts';
export type { CatalogSnapshot, LostWrite, RawRegistryRecord, RecordProblem } from './catalog-records.ts';
export {
  encodeNameBinding,
  encodeSubscriberRecord,
  foldRegistry,
  parseSubscriberRecord,
} from './catalog-records.ts';
export type { ExpectedRevision } from './catalog-revisions.ts';
export { IF_REVISION_HEADER, isRevision, RESTATES_HEADER } from './catalog-revisions.ts';
export type { CatalogWatcherOptions } from './catalog-watcher.ts';
export { CatalogWatcher } from './catalog-watcher.ts';
export {
  credentialRole,
  isCredentialName,
  openManagedCredentials,
  withCredentialValue,
} from './credential-seals.ts';
export type { DefinitionFile, DefinitionProblem } from './definition-files.ts';
export { loadDefinitionFiles } from './definition-files.ts';
export { type PrivateDestination, privateDestinations } from './destination-check.ts';
export type { CatalogErrorCode } from './errors.ts';
export { CatalogError } from './errors.ts';
export { openManagedHeaders, sealHeaderValue, withHeaderValue } from './header-seals.ts';
export type { HeadroomReaderOptions, HeadroomReading, PartitionHeadroom } from './headroom-reader.ts';
export { HeadroomReader } from './headroom-reader.ts';
export type { SubscriberPlacement, UnreadableRecord } from './instance-statuses.ts';
export {
  foldInstanceStatuses,
  placements,
  readInstanceStatuses,
  unreadableRecords,
} from './instance-statuses.ts';
export { LiveCatalog } from './live-catalog.ts';
export {
  DEFAULT_ROTATION_GRACE_MS,
  generateSigningSecret,
  MAX_ROTATION_GRACE_MS,
  newManagedSecret,
  resealManagedSecret,
  revealManagedSecret,
  rotateManagedSecret,
} from './managed-secret.ts';
export type { Actor, DeletePlan, NameHolder } from './name-holders.ts';
export {
  nameCollisions,
  nameHolder,
  OPERATOR,
  planDelete,
  refuseUnavailableNames,
  unavailableNames,
} from './name-holders.ts';
export { ensureOwnTopic } from './own-topic.ts';
export { OwnTopicWriter } from './own-topic-writer.ts';
export { describeSecret, publicRecord } from './public-record.ts';
export type { CatalogCheck, CheckFinding, CheckVerdict, ResealOutcome } from './record-upgrade.ts';
export { checkCatalog, resealRecord } from './record-upgrade.ts';
export type {
  Headroom,
  HeadroomBasis,
  HeadroomPlace,
  PartitionFigures,
  TopicRetention,
} from './retention-headroom.ts';
export {
  formatHeadroom,
  formatHeadroomCell,
  HeadroomCrossings,
  headroomSeconds,
  leastHeadroom,
  retentionHeadroom,
  retentionNoticeId,
  topicRetention,
} from './retention-headroom.ts';
export { RevisionMismatchError } from './revision-mismatch.ts';
export type { PartitionRewind, RewindPlan, RewindReading, RewindTarget } from './rewind-plan.ts';
export { parseRewindTarget, planRewind } from './rewind-plan.ts';
export type { SealBinding, SealRole } from './secret-box.ts';
export { openSecret, requireCurrentBinding, SIGNING, sealBindingOf, sealSecret } from './secret-box.ts';
export { secretRotation } from './secret-rotation.ts';
export type { SecretsKey } from './secrets-key.ts';
export {
  loadSecretsKey,
  parseSecretsKey,
  requireSecretsKey,
  SECRETS_KEY_ENV,
  secretsKeyId,
} from './secrets-key.ts';
export type { ResolveOptions, SigningKeys } from './signing-keys.ts';
export { resolveSigningKeys } from './signing-keys.ts';
export type { StateChangeContext, StateChangeRequest, StateChangeResult } from './state-change.ts';
export { changeSubscriberState, knownSubscriber } from './state-change.ts';
export {
  disabledRecord,
  pausedRecord,
  recordOfDefinition,
  resumedRecord,
  withManagedSecret,
} from './state-changes.ts';
export type { Notice, NoticeOptions, NoticePublisher } from './state-notices.ts';
export { disabledNotice, enabledNotice, noticeOptions, publishNotice } from './state-notices.ts';
export type { CatalogKafka, PurgeReport } from './subscriber-catalog.ts';
export {
  CATALOG_MIN_COMPACTION_LAG_MS,
  CATALOG_SEGMENT_MS,
  registryTopicSpec,
  SubscriberCatalog,
} from './subscriber-catalog.ts';
export type { DeleteRequest, DeleteResult } from './subscriber-delete.ts';
export { deleteSubscriber } from './subscriber-delete.ts';
export type {
  DisableRequest,
  DisableResult,
  DisablerCatalog,
  NoticeOutcome,
  SubscriberDisablerOptions,
} from './subscriber-disabler.ts';
export { SubscriberDisabler } from './subscriber-disabler.ts';
export type { SubscriberOverview } from './subscriber-overview.ts';
export { subscriberOverviews, subscriberOverviewsWithHeadroom } from './subscriber-overview.ts';
export type { RewindContext, RewindRequest, RewindResult } from './subscriber-rewind.ts';
export { describeMove, rewindSubscriber } from './subscriber-rewind.ts';
export { commitSubscriberStart, startFromOf } from './subscriber-start.ts';
export type {
  MeasuringResources,
  PartitionLedger,
  SubscriberHeadrooms,
  SubscriberLoad,
  TierStatus,
  UnlistedTier,
} from './subscriber-status.ts';
export { subscriberDetail, subscriberHeadrooms, subscriberLoads } from './subscriber-status.ts';
export type { ValueChange } from './value-diff.ts';
export { diffValues, formatChange, publicChange } from './value-diff.ts';
