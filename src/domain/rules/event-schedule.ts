/**
 * An event ends after it starts: `endsAt > startsAt` whenever an end is set.
 */
import type { Violation } from '../violations';
import { instantOf } from '../values';
import { blamedField } from './ordering';
import type { DomainRule } from './types';

export const checkEventSchedule = (
  event: { startsAt?: unknown; endsAt?: unknown },
  changed: ReadonlySet<string> = new Set(),
): Violation[] => {
  const startsAt = instantOf(event.startsAt);
  const endsAt = instantOf(event.endsAt);
  if (startsAt === null || endsAt === null || endsAt > startsAt) return [];
  const field = blamedField('startsAt', 'endsAt', changed);
  return field === 'startsAt'
    ? [{ path: [field], message: 'An event must start before it ends.', quote: { field: 'endsAt', value: new Date(endsAt).toISOString() } }]
    : [
        {
          path: [field],
          message: 'An event must end after it starts.',
          quote: { field: 'startsAt', value: new Date(startsAt).toISOString() },
        },
      ];
};

export const eventScheduleRule: DomainRule = {
  name: 'event-schedule',
  contentTypes: ['api::event.event'],
  fields: ['startsAt', 'endsAt'],
  check: (record, { changed }) => checkEventSchedule(record, changed),
};
