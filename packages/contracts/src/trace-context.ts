const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** True for a W3C traceparent (version 00) whose trace and parent ids are not all zeros. */
export function isTraceparent(value: string): boolean {
  const match = TRACEPARENT.exec(value);
  return match !== null && !/^0+$/.test(match[1] ?? '') && !/^0+$/.test(match[2] ?? '');
}
