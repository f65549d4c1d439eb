/**
 * "3 hours ago" for last-used times: the largest unit that fits, for Intl's relative time format. Pure.
 */
export type RelativeUnit = 'second' | 'minute' | 'hour' | 'day' | 'month' | 'year';

const UNITS: [RelativeUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

export const relativeTime = (iso: string, now: Date = new Date()): { value: number; unit: RelativeUnit } => {
  const seconds = Math.round((Date.parse(iso) - now.getTime()) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') return { value: Math.round(seconds / size), unit };
  }
  return { value: 0, unit: 'second' };
};
