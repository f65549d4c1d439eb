/**
 * A broken domain rule, and the one error every write path reports it with.
 *
 * The shape is Strapi's own (`details.errors[]` with `path`, `message`, `name`), the one its yup
 * validation produces, so the admin shows each message on its field and the Public Data API can turn
 * the paths into JSON pointers.
 *
 * A message never holds a value. A rule that helps by quoting one (the stored start an end must follow)
 * says so as data, `quote: { field, value }`: the admin shows it, and the Public Data API shows it only
 * to a key that may read that field (contract section 7), so no message can leak a value by accident.
 */
import { errors } from '@strapi/utils';

export type Quote = { field: string; value: string };

export type Violation = { path: string[]; message: string; quote?: Quote };

export type ValidationErrorDetail = {
  path: string[];
  /** The message with its quoted value, if any: what the admin shows. */
  message: string;
  name: 'ValidationError';
  /** Set when `message` quotes a value: the message without it, and the field the value is of. */
  unquoted?: { message: string; field: string };
};

/** The message with its quote: `The end must follow the start (2025-03-14).` */
export const quotedMessage = ({ message, quote }: Violation): string =>
  quote ? `${message.replace(/\.$/, '')} (${quote.value}).` : message;

export const validationErrorOf = (violations: readonly Violation[]): errors.ValidationError => {
  const details: ValidationErrorDetail[] = violations.map((violation) => ({
    path: [...violation.path],
    message: quotedMessage(violation),
    name: 'ValidationError',
    ...(violation.quote ? { unquoted: { message: violation.message, field: violation.quote.field } } : {}),
  }));
  // Mirrors yup's summary: the message itself when there is one, a count otherwise.
  const message = details.length === 1 ? details[0]!.message : `${details.length} errors occurred`;
  return new errors.ValidationError(message, { errors: details });
};
