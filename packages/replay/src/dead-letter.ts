import {
  CE_HEADER,
  type DeadLetterEvidence,
  HS_HEADER,
  type RecordLocation,
  readDeadLetterEvidence,
  tenantOf,
} from '@hookstream/contracts';
import type { StoredRecord } from './stored-record.ts';

/** A DLQ record with its evidence read; `problem` says why the evidence is unusable. */
export interface DeadLetter {
  readonly location: RecordLocation;
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
  /** null when the hookstream_* headers do not parse (written by something else). */
  readonly evidence: DeadLetterEvidence | null;
  readonly problem: string | null;
  /** The evidence's event id, else the CloudEvents ce_id; null for an unreadable poison record. */
  readonly eventId: string | null;
  readonly eventType: string | null;
  /** The event's tenant (its ce_tenant, which the DLQ copy keeps); null when it has none. */
  readonly tenant: string | null;
  /** When it was dead-lettered (the evidence's time; the record's timestamp without one). */
  readonly deadLetteredAtMs: number;
}

export function readDeadLetter(record: StoredRecord): DeadLetter {
  const read = readDeadLetterEvidence(record.headers);
  const evidence = read.ok ? read.evidence : null;
  const problem = read.ok ? null : `evidence headers unreadable: ${read.problem}`;
  const deadLetteredAtMs = evidence ? Date.parse(evidence.deadLetteredAt) : record.timestampMs;
  return {
    location: { topic: record.topic, partition: record.partition, offset: record.offset },
    key: record.key,
    value: record.value,
    headers: record.headers,
    evidence,
    problem,
    eventId: evidence?.eventId ?? record.headers[CE_HEADER.id] ?? record.headers[HS_HEADER.eventId] ?? null,
    eventType: record.headers[CE_HEADER.type] ?? null,
    tenant: tenantOf(record.headers) ?? null,
    deadLetteredAtMs,
  };
}
