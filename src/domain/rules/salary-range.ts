/**
 * A job's salary range is ordered: `salaryMin <= salaryMax` when both are set.
 */
import type { Violation } from '../violations';
import { amountOf } from '../values';
import { blamedField } from './ordering';
import type { DomainRule } from './types';

export const checkSalaryRange = (
  job: { salaryMin?: unknown; salaryMax?: unknown },
  changed: ReadonlySet<string> = new Set(),
): Violation[] => {
  const salaryMin = amountOf(job.salaryMin);
  const salaryMax = amountOf(job.salaryMax);
  if (salaryMin === null || salaryMax === null || salaryMin <= salaryMax) return [];
  const field = blamedField('salaryMin', 'salaryMax', changed);
  return field === 'salaryMin'
    ? [
        {
          path: [field],
          message: 'The minimum salary cannot exceed the maximum salary.',
          quote: { field: 'salaryMax', value: String(salaryMax) },
        },
      ]
    : [
        {
          path: [field],
          message: 'The maximum salary cannot be below the minimum salary.',
          quote: { field: 'salaryMin', value: String(salaryMin) },
        },
      ];
};

export const salaryRangeRule: DomainRule = {
  name: 'salary-range',
  contentTypes: ['api::job.job'],
  fields: ['salaryMin', 'salaryMax'],
  check: (record, { changed }) => checkSalaryRange(record, changed),
};
