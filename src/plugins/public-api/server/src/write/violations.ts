/**
 * What Strapi says about a refused write -> the API's answer (contract sections 7 and 8). Pure.
 *
 * Strapi's validation (required, min/max, regex, enumerations, uid format, uniqueness) and the
 * application's domain rules all throw a ValidationError with `details.errors[]` of `{ path, message }`.
 * Each becomes one 422 error object pointing at the attribute. A value that must be unique and is not
 * is a conflict with the current state: 409 when that is all that is wrong. A problem on a field the key
 * can neither read nor write is reported without naming it. Anything else is not a client error and is
 * left to the error layer (500, logged).
 */
import { ApiError, apiErrors, errorObject, type ErrorObject } from '../http/errors';
import type { PlannedMember } from '../fields/codec';
import { pointerOfPath } from './component-paths';
import { attributePointer } from './pointer';
import { MAX_REPORTED_PROBLEMS } from './attributes';
import { SLUG_TAKEN_MESSAGES } from '../slugs/versions';

/** Strapi's message for a unique attribute (and uid) whose value another published record holds; the plugin's slug rule has its own (`slugs/`). */
export const UNIQUE_MESSAGE = 'This attribute must be unique';

/**
 * One of Strapi's `details.errors[]`; domain rules add `unquoted` (src/domain/violations), and the writes
 * service `pointer`, where the request sent the value the path names (`withPointers`).
 */
type Detail = { path?: unknown; message?: unknown; unquoted?: { message?: unknown; field?: unknown }; pointer?: unknown };

type StrapiValidationError = Error & { name: 'ValidationError'; details?: { errors?: Detail[] } };

const isValidationError = (error: unknown): error is StrapiValidationError => error instanceof Error && error.name === 'ValidationError';

/** PostgreSQL classes of data that does not fit a column, and of constraint violations. */
const DATA_ERROR_CODES = new Set(['22001', '22003', '22007', '22008', '22P02']);
const UNIQUE_ERROR_CODES = new Set(['23505', 'SQLITE_CONSTRAINT_UNIQUE']);

const databaseCode = (error: unknown): string | null => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
};

export type ViolationScope = {
  /** Fields of the resource the key may read or write: the only names an answer may carry. */
  visible: ReadonlySet<string>;
  /** Fields the key may read: the only fields whose stored values an answer may quote. */
  readable: ReadonlySet<string>;
};

/** The message to send: a domain rule's quoted value only to a key that may read its field. */
const messageOf = (detail: Detail, scope: ViolationScope): string | null => {
  const { unquoted } = detail;
  if (unquoted && typeof unquoted.message === 'string') {
    return typeof unquoted.field === 'string' && scope.readable.has(unquoted.field) && typeof detail.message === 'string'
      ? detail.message
      : unquoted.message;
  }
  return typeof detail.message === 'string' && detail.message !== '' ? detail.message : null;
};

const problemOf = (detail: Detail, scope: ViolationScope): { problem: ErrorObject; unique: boolean } => {
  const path = Array.isArray(detail.path) ? detail.path.map(String) : [];
  const message = messageOf(detail, scope) ?? 'This value is not accepted.';
  const field = path[0];
  const unique = message === UNIQUE_MESSAGE || (Object.values(SLUG_TAKEN_MESSAGES) as string[]).includes(message);
  if (field === undefined || !scope.visible.has(field)) {
    return {
      unique,
      problem: errorObject(422, 'The record would not be valid: a field this key cannot see does not accept the result.', {
        reason: 'hidden_field_invalid',
      }),
    };
  }
  // The pointer names the value as the caller sent it: inside a component as deep as the request spells
  // it out (`withPointers`), else the attribute; Strapi's deeper path (inside stored blocks, say) does not
  // exist in the request document.
  const source = { pointer: typeof detail.pointer === 'string' ? detail.pointer : attributePointer(field) };
  if (unique) {
    return { unique, problem: errorObject(409, `Another record already uses this ${field}.`, { source, reason: 'duplicate_value' }) };
  }
  return { unique, problem: errorObject(422, message, { source, reason: 'validation_failed' }) };
};

/**
 * Strapi's refusal of a write with each problem's `pointer`: where the request sent the value its path
 * names (write/component-paths.ts), for the error layer to point at. Anything else is returned as it is.
 */
export const withPointers = (error: unknown, planned: readonly PlannedMember[]): unknown => {
  if (!isValidationError(error) || !Array.isArray(error.details?.errors)) return error;
  const errors = error.details!.errors!.map((detail) => {
    const path = Array.isArray(detail.path) ? detail.path.map(String) : [];
    const pointer = pointerOfPath(path, planned);
    if (pointer === null) return detail;
    return { ...detail, pointer, ...(typeof detail.message === 'string' ? { message: restated(detail.message, path) } : {}) };
  });
  return Object.assign(error, { details: { ...error.details, errors } });
};

/** How yup writes a path in its messages: `sections[2].cta.label`. */
const yupPath = (path: readonly string[]): string =>
  path.map((token, index) => (/^\d+$/.test(token) ? `[${token}]` : index === 0 ? token : `.${token}`)).join('');

/**
 * A message about a value inside a component, said as at the top level: of the field by its name (the
 * pointer says where), and a required value left out as "must be defined" (yup says that a required
 * value, which is not nullable, was null).
 */
const restated = (message: string, path: readonly string[]): string => {
  if (path.length < 2) return message;
  const prefix = yupPath(path);
  const name = [...path].reverse().find((token) => !/^\d+$/.test(token)) ?? prefix;
  const own = message.startsWith(`${prefix} `) ? `${name}${message.slice(prefix.length)}` : message;
  return own.replace(/^(\S+) must be a `\w+` type, but the final value was: `null`\.?$/, '$1 must be defined');
};

/** The ApiError for an error thrown by a write through the document service, or null when it is not a client error. */
export const apiErrorOfWrite = (error: unknown, scope: ViolationScope): ApiError | null => {
  if (error instanceof ApiError) return error;
  if (isValidationError(error)) {
    const details = Array.isArray(error.details?.errors) ? error.details!.errors! : [];
    if (details.length === 0) {
      return apiErrors(422, [errorObject(422, error.message || 'The record is not valid.', { reason: 'validation_failed' })]);
    }
    const judged = details.map((detail) => problemOf(detail, scope));
    // Strapi reports one problem per path; identical generic problems are said once.
    const seen = new Set<string>();
    const problems = judged
      .map((entry) => entry.problem)
      .filter((problem) => {
        const id = JSON.stringify(problem);
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      })
      .slice(0, MAX_REPORTED_PROBLEMS);
    if (judged.every((entry) => entry.unique)) return apiErrors(409, problems);
    // Mixed with other problems, a duplicate is one more reason the record is not valid.
    return apiErrors(
      422,
      problems.map((problem) =>
        problem.status === '409' ? errorObject(422, problem.detail, { source: problem.source, reason: 'duplicate_value' }) : problem,
      ),
    );
  }
  const code = databaseCode(error);
  if (code && DATA_ERROR_CODES.has(code)) {
    return apiErrors(422, [errorObject(422, 'A value does not fit the field it was written to.', { reason: 'value_out_of_range' })]);
  }
  if (code && UNIQUE_ERROR_CODES.has(code)) {
    return apiErrors(409, [errorObject(409, 'The write conflicts with another record.', { reason: 'duplicate_value' })]);
  }
  return null;
};
