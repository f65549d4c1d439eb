/**
 * Running the rules for one write. Pure, given the lookups.
 */
import type { DomainRule, RecordValues, RuleContext } from './rules';
import type { Violation } from './violations';

/**
 * The rules a write can break. An update that sends none of a rule's fields leaves it as it was;
 * a create or a clone produces a new document, so every rule applies (a clone repeats the SKU of
 * its source even when the incoming data does not mention it).
 */
export const rulesAtStake = (rules: readonly DomainRule[], kind: 'create' | 'update' | 'clone', data: RecordValues): DomainRule[] =>
  kind === 'update' ? rules.filter((rule) => rule.fields.some((field) => Object.prototype.hasOwnProperty.call(data, field))) : [...rules];

/** The attributes the rules read, each once. */
export const fieldsRead = (rules: readonly DomainRule[]): string[] => [...new Set(rules.flatMap((rule) => rule.fields))];

/** What the record will hold: stored values, overwritten by every attribute the write sends. */
export const effectiveValues = (stored: RecordValues, data: RecordValues, fields: readonly string[]): RecordValues => {
  const record: Record<string, unknown> = {};
  for (const field of fields) {
    record[field] = Object.prototype.hasOwnProperty.call(data, field) ? data[field] : stored[field];
  }
  return record;
};

export const evaluateRules = async (rules: readonly DomainRule[], record: RecordValues, context: RuleContext): Promise<Violation[]> =>
  (await Promise.all(rules.map((rule) => rule.check(record, context)))).flat();
