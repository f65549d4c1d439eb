/**
 * Which field to blame when two fields are out of order. Pure.
 *
 * The later field (the end, the maximum) by default; the earlier one when the write changed only
 * that one, so moving a start past the stored end is reported on the start the editor just typed.
 */
export const blamedField = (earlier: string, later: string, changed: ReadonlySet<string>): string =>
  changed.has(earlier) && !changed.has(later) ? earlier : later;
