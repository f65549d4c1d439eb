/**
 * The small vocabulary field types judge written values with. Pure.
 */
import type { PlannedValue, Violation, WriteVerdict } from './codec';

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a value is, for a detail that says what was sent instead. */
export const describe = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
};

export const accept = (planned: PlannedValue): WriteVerdict => ({ ok: true, planned });
export const acceptValue = (value: unknown): WriteVerdict => accept({ kind: 'value', value });
export const refuse = (...violations: Violation[]): WriteVerdict => ({ ok: false, violations });
export const violation = (pointer: string, detail: string): Violation => ({ pointer, detail });

/** The pointer to a member of the object at `pointer`, any name escaped (RFC 6901: `~` and `/`). */
export const memberPointer = (pointer: string, member: string): string => `${pointer}/${member.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** Each item of an array judged on its own: every item's violation, or all the items. */
export const judgeItems = <T>(
  items: readonly unknown[],
  pointer: string,
  judgeItem: (item: unknown, pointer: string) => T | Violation,
): { ok: true; items: T[] } | { ok: false; violations: Violation[] } => {
  const accepted: T[] = [];
  const violations: Violation[] = [];
  items.forEach((item, index) => {
    const verdict = judgeItem(item, `${pointer}/${index}`);
    if (isViolation(verdict)) violations.push(verdict);
    else accepted.push(verdict);
  });
  return violations.length ? { ok: false, violations } : { ok: true, items: accepted };
};

const isViolation = (value: unknown): value is Violation => isObject(value) && typeof value.detail === 'string';
