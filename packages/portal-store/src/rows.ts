import type { SQLOutputValue } from 'node:sqlite';

/** A row as node:sqlite returns it. */
export type Row = Record<string, SQLOutputValue>;

// The columns' types are the schema's (schema.ts); these read them without a cast at each use.

export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new TypeError(`column ${column}: expected text, got ${typeof value}`);
  return value;
}

export function textOrNull(row: Row, column: string): string | null {
  const value = row[column];
  return value === null || value === undefined ? null : text(row, column);
}

export function num(row: Row, column: string): number {
  const value = row[column];
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  throw new TypeError(`column ${column}: expected a number, got ${typeof value}`);
}

export function numOrNull(row: Row, column: string): number | null {
  const value = row[column];
  return value === null || value === undefined ? null : num(row, column);
}

export function isoOrNull(row: Row, column: string): string | null {
  const ms = numOrNull(row, column);
  return ms === null ? null : new Date(ms).toISOString();
}

export function iso(row: Row, column: string): string {
  return new Date(num(row, column)).toISOString();
}
