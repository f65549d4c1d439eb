/**
 * The application's domain rules, and which of them govern a content type.
 */
import { eventScheduleRule } from './event-schedule';
import { festivalDatesRule } from './festival-dates';
import { nonNegativePriceRule } from './non-negative-price';
import { salaryRangeRule } from './salary-range';
import type { DomainRule } from './types';
import { uniqueSkuRule } from './unique-sku';

export const DOMAIN_RULES: readonly DomainRule[] = [
  eventScheduleRule,
  festivalDatesRule,
  salaryRangeRule,
  nonNegativePriceRule,
  uniqueSkuRule,
];

export const rulesFor = (contentType: string, rules: readonly DomainRule[] = DOMAIN_RULES): DomainRule[] =>
  rules.filter((rule) => rule.contentTypes.includes(contentType));

export type { DomainRule, RecordValues, RuleContext, RuleLookups } from './types';
