/**
 * A command's attributes -> its input, or every problem at once as 422 error objects pointing into
 * the request document (contract sections 8 and 10). Pure.
 */
import type { z } from 'zod';
import { commandReason, errorObject, type CommandReason, type ErrorObject, type ReasonOf } from '../http/errors';
import { echo } from '../query/problems';
import { attributePointer } from '../write/pointer';
import type { CommandViolation } from './types';

/** More problems than this in one answer help nobody; a crafted payload could produce thousands. */
export const MAX_INPUT_PROBLEMS = 50;

const problem = (path: (string | number)[], detail: string, reason: ReasonOf<422> | CommandReason): ErrorObject =>
  errorObject(422, detail, {
    source: { pointer: path.length ? attributePointer(String(path[0]), ...path.slice(1)) : '/data/attributes' },
    reason,
  });

const asPath = (path: readonly PropertyKey[]): (string | number)[] =>
  path.map((token) => (typeof token === 'number' ? token : String(token)));

const isAbsent = (attributes: Record<string, unknown>, path: (string | number)[]): boolean =>
  path.length === 1 && !Object.prototype.hasOwnProperty.call(attributes, path[0]!);

/** zod's issues -> one error object per offending value; unknown attributes one each, absent ones as required. */
export const inputProblems = (issues: readonly z.core.$ZodIssue[], attributes: Record<string, unknown>): ErrorObject[] =>
  issues.flatMap((issue) => {
    const path = asPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => problem([...path, key], `${echo(key)} is not an attribute of this command.`, 'attribute_unknown'));
    }
    if (isAbsent(attributes, path)) {
      return [problem(path, 'This attribute is required.', 'attribute_required')];
    }
    return [problem(path, issue.message, 'validation_failed')];
  });

export const violationProblems = (violations: readonly CommandViolation[]): ErrorObject[] =>
  violations.map((violation) => problem(violation.path, violation.message, commandReason(violation.reason)));

/** Problems in document order (by pointer), each once, at most MAX_INPUT_PROBLEMS. */
export const orderedProblems = (problems: readonly ErrorObject[]): ErrorObject[] => {
  const seen = new Set<string>();
  return problems
    .filter((entry) => {
      const id = JSON.stringify(entry);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    })
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => {
      const x = a.entry.source && 'pointer' in a.entry.source ? a.entry.source.pointer : '';
      const y = b.entry.source && 'pointer' in b.entry.source ? b.entry.source.pointer : '';
      return x < y ? -1 : x > y ? 1 : a.index - b.index;
    })
    .map(({ entry }) => entry)
    .slice(0, MAX_INPUT_PROBLEMS);
};
