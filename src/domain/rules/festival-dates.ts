/**
 * A festival does not end before it starts: `endsOn >= startsOn` (a one-day festival is fine).
 */
import type { Violation } from '../violations';
import { calendarDayOf } from '../values';
import { blamedField } from './ordering';
import type { DomainRule } from './types';

export const checkFestivalDates = (
  festival: { startsOn?: unknown; endsOn?: unknown },
  changed: ReadonlySet<string> = new Set(),
): Violation[] => {
  const startsOn = calendarDayOf(festival.startsOn);
  const endsOn = calendarDayOf(festival.endsOn);
  if (startsOn === null || endsOn === null || endsOn >= startsOn) return [];
  const field = blamedField('startsOn', 'endsOn', changed);
  return field === 'startsOn'
    ? [{ path: [field], message: 'A festival cannot start after its last day.', quote: { field: 'endsOn', value: endsOn } }]
    : [{ path: [field], message: 'A festival cannot end before its first day.', quote: { field: 'startsOn', value: startsOn } }];
};

export const festivalDatesRule: DomainRule = {
  name: 'festival-dates',
  contentTypes: ['api::festival.festival'],
  fields: ['startsOn', 'endsOn'],
  check: (record, { changed }) => checkFestivalDates(record, changed),
};
