/** 850ms, 12s, 3m 20s, 2h 5m, 3d 4h: an age for people. */
export function formatAge(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function formatCount(n: number | null): string {
  return n === null ? '–' : String(n);
}

/** A path segment for a link: names and ids are escaped again by the template, this keeps them one segment. */
export function segment(text: string): string {
  return encodeURIComponent(text);
}
