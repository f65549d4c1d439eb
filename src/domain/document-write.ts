/**
 * Reading a document service call as a write: which document, which locale, which data. Pure.
 *
 * Only the actions that put new values into a document are writes here. `publish` and
 * `discardDraft` copy values that were checked when they were written, and `delete` removes them.
 */
import type { RecordValues } from './rules';

/** `'*'` (all locales) when the call names several; null when it names none (the default locale applies). */
export type LocaleChoice = string | '*' | null;

export type DocumentWrite =
  | { kind: 'create'; locale: LocaleChoice; data: RecordValues }
  | { kind: 'update'; documentId: string; locale: LocaleChoice; data: RecordValues }
  | { kind: 'clone'; documentId: string; locale: LocaleChoice; data: RecordValues };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const localeChoiceOf = (locale: unknown): LocaleChoice => {
  if (typeof locale === 'string' && locale !== '') return locale;
  if (Array.isArray(locale)) return '*';
  return null;
};

export const documentWriteOf = (action: string, params: unknown): DocumentWrite | null => {
  const call = isRecord(params) ? params : {};
  const data = isRecord(call.data) ? call.data : {};
  const locale = localeChoiceOf(call.locale);
  const documentId = typeof call.documentId === 'string' && call.documentId !== '' ? call.documentId : null;
  switch (action) {
    case 'create':
      return { kind: 'create', locale, data };
    case 'update':
      return documentId ? { kind: 'update', documentId, locale, data } : null;
    case 'clone':
      return documentId ? { kind: 'clone', documentId, locale, data } : null;
    default:
      return null;
  }
};
