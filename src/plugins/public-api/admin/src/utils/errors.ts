/**
 * Refusals from the admin routes -> messages under the form fields they concern. Pure.
 */
import { CONTENT_MANAGER_REFUSAL } from '../../../shared/contracts/content-manager-access';
import type { FieldIssue } from '../../../shared/contracts/errors';

/** Messages by field path (`name`, `origins.1`, `resources.native:events.read`); '' is the whole form. */
export type FieldErrors = Record<string, string>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The field issues of a refused request (a FetchError of the admin's fetch client), if any. */
export const issuesOf = (error: unknown): FieldIssue[] | null => {
  if (!isRecord(error) || !isRecord(error.response) || !isRecord(error.response.data)) return null;
  const body = error.response.data;
  if (!isRecord(body.error) || !isRecord(body.error.details) || !Array.isArray(body.error.details.errors)) return null;
  return body.error.details.errors.filter(
    (issue): issue is FieldIssue => isRecord(issue) && Array.isArray(issue.path) && typeof issue.message === 'string',
  );
};

export const toFieldErrors = (issues: FieldIssue[]): FieldErrors => {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const path = issue.path.join('.');
    errors[path] = errors[path] ? `${errors[path]} ${issue.message}` : issue.message;
  }
  return errors;
};

/** Whether a refusal says the admin may not do this in the Content Manager (its message says what to do). */
export const isContentManagerRefusal = (error: unknown): boolean =>
  isRecord(error) &&
  isRecord(error.response) &&
  isRecord(error.response.data) &&
  isRecord(error.response.data.error) &&
  isRecord(error.response.data.error.details) &&
  error.response.data.error.details.reason === CONTENT_MANAGER_REFUSAL;

/** The message of any refusal, for a notification. */
export const messageOf = (error: unknown, fallback: string): string => {
  if (isRecord(error) && isRecord(error.response) && isRecord(error.response.data) && isRecord(error.response.data.error)) {
    const message = error.response.data.error.message;
    if (typeof message === 'string' && message !== '') return message;
  }
  return fallback;
};

/**
 * What a refused request shows: the messages under the fields the refusal names (null when it names none,
 * or when the page has no fields to show them under), and the notification's text: the server's message,
 * or `invalid` for a refusal that points at fields (a Content Manager refusal's message says why, and what
 * to ask for).
 */
export const refusalOf = (
  error: unknown,
  text: { invalid: string; failed: string },
  withFields: boolean,
): { fieldErrors: FieldErrors | null; message: string } => {
  const issues = withFields ? issuesOf(error) : null;
  if (!issues) return { fieldErrors: null, message: messageOf(error, text.failed) };
  return { fieldErrors: toFieldErrors(issues), message: isContentManagerRefusal(error) ? messageOf(error, text.invalid) : text.invalid };
};

/** Errors whose path starts with `prefix.`, re-keyed without it. */
export const errorsUnder = (errors: FieldErrors, prefix: string): FieldErrors =>
  Object.fromEntries(
    Object.entries(errors)
      .filter(([path]) => path.startsWith(`${prefix}.`))
      .map(([path, message]) => [path.slice(prefix.length + 1), message]),
  );
