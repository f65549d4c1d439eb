/**
 * Usage figures as the key page shows them: axis ticks per window, percentages, milliseconds. Pure.
 */
import type { UsageWindow } from '../../../../shared/contracts/usage';

/** The tick label of a step: the hour for 24 h, the day and hour for 7 days, the day for 30 days. */
export const stepLabel = (start: string, window: UsageWindow, locale = 'en'): string => {
  const date = new Date(start);
  if (window === '24h') return date.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
  if (window === '7d') return date.toLocaleString(locale, { weekday: 'short', hour: '2-digit' });
  return date.toLocaleDateString(locale, { month: 'short', day: 'numeric' });
};

export const percent = (rate: number | null): string =>
  rate === null ? '—' : `${(rate * 100).toFixed(rate > 0 && rate < 0.001 ? 2 : 1)}%`;

export const milliseconds = (ms: number | null): string => (ms === null ? '—' : ms >= 1000 ? `≤ ${ms / 1000} s` : `≤ ${ms} ms`);
