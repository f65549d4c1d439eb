/**
 * A job's salary range is ordered: `salaryMin <= salaryMax` when both are set.
 */
import type { Violation } from '../violations';
import { amountOf } from '../values';
import { blamedField } from './ordering';
import type { DomainRule } from './types';

export const checkSalaryRange = (
  job: { salaryMin?: unknown; salaryMax?: unknown },
  changed: ReadonlySet<string> = new Set()
): Violation[] => {
  const salaryMin = amountOf(job.salaryMin);
  const salaryMax = amountOf(job.salaryMax);
  if (salaryMin === null || salaryMax === null || salaryMin <= salaryMax) return [];
  const field = blamedField('salaryMin', 'salaryMax', changed);
  const message =
    field === 'salaryMin'
      ? `The minimum salary cannot exceed the maximum salary (${salaryMax}).`
      : `The maximum salary cannot be below the minimum salary (${salaryMin}).`;
  return [{ path: [field], message }];
};

export const salaryRangeRule: DomainRule = {
  name: 'salary-range',
  contentTypes: ['api::job.job'],
  fields: ['salaryMin', 'salaryMax'],
  check: (record, { changed }) => checkSalaryRange(record, changed),
};
