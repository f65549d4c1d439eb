/**
 * A broken domain rule, and the one error every write path reports it with.
 *
 * The shape is Strapi's own (`details.errors[]` with `path`, `message`, `name`), the one its yup
 * validation produces, so the admin shows each message on its field and the Public Data API can turn
 * the paths into JSON pointers.
 */
import { errors } from '@strapi/utils';

export type Violation = { path: string[]; message: string };

export type ValidationErrorDetail = Violation & { name: 'ValidationError' };

export const validationErrorOf = (violations: readonly Violation[]): errors.ValidationError => {
  const details: ValidationErrorDetail[] = violations.map(({ path, message }) => ({
    path: [...path],
    message,
    name: 'ValidationError',
  }));
  // Mirrors yup's summary: the message itself when there is one, a count otherwise.
  const message = details.length === 1 ? details[0].message : `${details.length} errors occurred`;
  return new errors.ValidationError(message, { errors: details });
};
