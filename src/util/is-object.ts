/** Whether a value (typically parsed JSON from outside) is an object with fields: not null, not an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
