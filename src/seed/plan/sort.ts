/**
 * `sort` values as editors leave them: mostly in steps of ten, a few left empty, a few shared, so
 * that ordering by sort is tested with nulls and ties. Pure.
 */
export const sortValueAt = (index: number): number | null => {
  if (index % 11 === 7) return null;
  // Every ninth record shares the value of the one before it.
  const step = index % 9 === 5 ? index - 1 : index;
  return (step + 1) * 10;
};
