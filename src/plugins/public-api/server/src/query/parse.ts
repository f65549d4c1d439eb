/**
 * Query parameters of a read -> a plain ParsedQuery (contract sections 5, 6 and 14). Pure and total: for
 * any input it returns a query or throws one ApiError 400 whose error objects each name a parameter.
 *
 * Every parameter is judged, and all problems are reported at once (up to MAX_REPORTED_PROBLEMS), in the
 * order the parameters were sent.
 */
import { apiErrors, isApiError, type ApiError, type ErrorObject } from '../http/errors';
import { MAX_CURSOR_LENGTH } from './cursor';
import { MAX_FILTERS, conditionKey, isFilterParameter, parseFilter } from './filters';
import { isFieldsetParameter, parseFieldset, returnedTypes, type ReturnedTypes } from './fields-parameter';
import { parseInclude } from './include';
import { echo, parameterError } from './problems';
import type {
  FilterCondition,
  IncludeSpec,
  ParsedQuery,
  QueryVocabulary,
  ReadStatus,
  RecordQuery,
  RecordVocabulary,
  SortTerm,
} from './types';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
export const MAX_REPORTED_PROBLEMS = 20;

export const DEFAULT_SORT: readonly SortTerm[] = [{ key: 'sort', direction: 'asc' }];

// ---------------------------------------------------------------------------------------------------------
// One parameter each
// ---------------------------------------------------------------------------------------------------------

/** Digits only, no sign, no leading zero, no exponent: `limit=1e1` and `limit=010` are mistakes. */
const LIMIT = /^[1-9]\d{0,2}$/;

export const parseLimit = (text: string): number => {
  if (!LIMIT.test(text) || Number(text) > MAX_LIMIT) {
    throw parameterError('limit', `The limit must be an integer from 1 to ${MAX_LIMIT}; got ${echo(text)}.`, 'limit_invalid');
  }
  return Number(text);
};

/**
 * `title,-price` -> terms. A key outside the sortable set gets one answer, whether the field does not
 * exist, is not readable with this key or is not a scalar: nothing about unreadable fields leaks.
 */
export const parseSort = (text: string, sortable: ReadonlySet<string>): SortTerm[] => {
  const terms: SortTerm[] = [];
  for (const item of text.split(',')) {
    const descending = item.startsWith('-');
    const key = descending ? item.slice(1) : item;
    if (!sortable.has(key)) throw parameterError('sort', `${echo(item)} is not a sortable key.`, 'sort_invalid');
    if (terms.some((term) => term.key === key)) {
      throw parameterError('sort', `The sort key ${echo(key)} appears more than once.`, 'sort_repeated');
    }
    terms.push({ key, direction: descending ? 'desc' : 'asc' });
  }
  return terms;
};

/**
 * A configured locale code, matched without regard to case (language tags are case-insensitive) and
 * returned as configured. Resources that are not localized ignore the parameter.
 */
export const parseLocale = (text: string, locales: readonly string[] | null): string | null => {
  if (locales === null) return null;
  const wanted = text.toLowerCase();
  const match = locales.find((locale) => locale.toLowerCase() === wanted);
  if (match === undefined) {
    throw parameterError(
      'locale',
      `The locale ${echo(text)} is not available; use one of ${locales.join(', ') || '(none)'}.`,
      'locale_unknown',
    );
  }
  return match;
};

/** At most this many codes in a fallback list (contract section 15): each one may cost the read a lookup per row. */
export const MAX_LOCALES = 5;

/**
 * `de-CH,de,en` -> the locales a read falls back through, in order (contract section 15): each a configured
 * code (as parseLocale), none twice, at most MAX_LOCALES. A single code is a list of one. Null when the
 * resource is not localized.
 */
export const parseLocaleList = (text: string, locales: readonly string[] | null): string[] | null => {
  if (locales === null) return null;
  const items = text.split(',');
  if (items.length > MAX_LOCALES) {
    throw parameterError('locale', `At most ${MAX_LOCALES} locales may be listed; got ${items.length}.`, 'locale_list_too_long');
  }
  const list: string[] = [];
  for (const item of items) {
    const code = parseLocale(item, locales)!;
    if (list.includes(code)) throw parameterError('locale', `The locale ${echo(item)} is listed more than once.`, 'locale_repeated');
    list.push(code);
  }
  return list;
};

/** A parsed list as the query carries it: the first locale, and the ones it falls back to. */
const splitLocales = (list: string[] | null | undefined): { locale: string | null; fallback: string[] } => ({
  locale: list?.[0] ?? null,
  fallback: list?.slice(1) ?? [],
});

/**
 * `published` or `draft`, exactly (lower case, as every other value of the API's vocabulary). Whether the
 * key may read drafts is the handler's question: a well-formed value is accepted here for any key.
 */
export const parseStatus = (text: string): ReadStatus => {
  if (text === 'published' || text === 'draft') return text;
  throw parameterError('status', `The status must be published or draft; got ${echo(text)}.`, 'status_invalid');
};

export const checkCursorText = (text: string): string => {
  if (text === '' || text.length > MAX_CURSOR_LENGTH) {
    throw parameterError('cursor', 'The cursor is not valid; start again from the first page.', 'cursor_invalid');
  }
  return text;
};

// ---------------------------------------------------------------------------------------------------------
// The whole query
// ---------------------------------------------------------------------------------------------------------

/** Runs one parameter's parser, keeping its 400 for the combined answer. */
const collect = <T>(problems: ErrorObject[], parse: () => T): T | undefined => {
  try {
    return parse();
  } catch (error) {
    if (!isApiError(error)) throw error;
    problems.push(...error.errors);
    return undefined;
  }
};

const report = (problems: ErrorObject[], error: ApiError): void => {
  problems.push(...error.errors);
};

/** Each parameter once, in the order sent; a parameter given twice is a problem of its own. */
const singleParameters = (query: URLSearchParams, problems: ErrorObject[]): [string, string][] => {
  const single: [string, string][] = [];
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    if (values.length > 1) {
      report(problems, parameterError(name, `The query parameter ${echo(name)} is given more than once.`, 'parameter_repeated'));
    } else {
      single.push([name, values[0]!]);
    }
  }
  return single;
};

const throwProblems = (problems: ErrorObject[]): void => {
  if (problems.length) throw apiErrors(400, problems.slice(0, MAX_REPORTED_PROBLEMS));
};

const unknownParameter = (name: string, detail: string) => parameterError(name, detail, 'unknown_parameter');

/**
 * The types a read returns, judged from its `include` as sent (whatever the order of the parameters),
 * or null when include is refused: its own 400 says why, and no type can be judged against it.
 */
const returnedTypesOf = (query: URLSearchParams, vocabulary: RecordVocabulary): ReturnedTypes | null => {
  const includes = query.getAll('include');
  if (includes.length > 1) return null;
  let include: IncludeSpec[] = [];
  try {
    if (includes.length === 1) include = parseInclude(includes[0]!, vocabulary.include);
  } catch (error) {
    if (!isApiError(error)) throw error;
    return null;
  }
  return returnedTypes(vocabulary.records, include);
};

/** Collects `fields[type]` parameters into fieldsets, reporting each refused one. */
const fieldsetCollector = (query: URLSearchParams, vocabulary: RecordVocabulary, problems: ErrorObject[]) => {
  const fields = new Map<string, ReadonlySet<string>>();
  let returned: ReturnedTypes | null | undefined;
  return {
    fields,
    add(name: string, text: string) {
      if (returned === undefined) returned = returnedTypesOf(query, vocabulary);
      const types = returned;
      const fieldset = collect(problems, () => parseFieldset(name, text, types));
      if (fieldset) fields.set(fieldset.type, fieldset.names);
    },
  };
};

/** The query of a collection read: limit, cursor, sort, locale, include, filter[...] and fields[...]. */
export const parseCollectionQuery = (query: URLSearchParams, vocabulary: QueryVocabulary): ParsedQuery => {
  const problems: ErrorObject[] = [];
  const fieldsets = fieldsetCollector(query, vocabulary, problems);
  const parsed: ParsedQuery = {
    limit: DEFAULT_LIMIT,
    cursor: null,
    sort: [...(vocabulary.defaultSort ?? DEFAULT_SORT)],
    locale: null,
    fallback: [],
    include: [],
    filters: [],
    fields: fieldsets.fields,
    status: 'published',
  };
  // Conditions by (field, operator): `filter[a]` and `filter[a][eq]` are one condition, given twice.
  const conditions = new Map<string, FilterCondition>();
  let filterCount = 0;
  const addFilter = (name: string, text: string) => {
    filterCount += 1;
    if (filterCount > MAX_FILTERS) {
      report(problems, parameterError(name, `At most ${MAX_FILTERS} filter conditions are allowed.`, 'filter_limit'));
      return;
    }
    const condition = collect(problems, () => parseFilter(name, text, vocabulary.filterable));
    if (!condition) return;
    const earlier = conditions.get(conditionKey(condition));
    if (earlier) {
      const detail = `${echo(name)} repeats the condition of ${echo(earlier.parameter)}.`;
      report(problems, parameterError(name, detail, 'filter_repeated'));
      return;
    }
    conditions.set(conditionKey(condition), condition);
    parsed.filters.push(condition);
  };

  for (const [name, text] of singleParameters(query, problems)) {
    switch (name) {
      case 'limit':
        parsed.limit = collect(problems, () => parseLimit(text)) ?? parsed.limit;
        break;
      case 'cursor':
        parsed.cursor = collect(problems, () => checkCursorText(text)) ?? null;
        break;
      case 'sort':
        parsed.sort = collect(problems, () => parseSort(text, vocabulary.sortable)) ?? parsed.sort;
        break;
      case 'locale':
        Object.assign(parsed, splitLocales(collect(problems, () => parseLocaleList(text, vocabulary.locales))));
        break;
      case 'include':
        parsed.include = collect(problems, () => parseInclude(text, vocabulary.include)) ?? [];
        break;
      case 'status':
        parsed.status = collect(problems, () => parseStatus(text)) ?? parsed.status;
        break;
      default:
        if (isFilterParameter(name)) addFilter(name, text);
        else if (isFieldsetParameter(name)) fieldsets.add(name, text);
        else report(problems, unknownParameter(name, `Unknown query parameter ${echo(name)}.`));
    }
  }

  throwProblems(problems);
  return parsed;
};

/** The query of a single-record read (or a singleton): only locale, include, status and fields[...]. */
export const parseRecordQuery = (query: URLSearchParams, vocabulary: RecordVocabulary): RecordQuery => {
  const problems: ErrorObject[] = [];
  let locales: { locale: string | null; fallback: string[] } = splitLocales(null);
  let include: IncludeSpec[] = [];
  let status: ReadStatus = 'published';
  const fieldsets = fieldsetCollector(query, vocabulary, problems);
  for (const [name, text] of singleParameters(query, problems)) {
    if (name === 'locale') locales = splitLocales(collect(problems, () => parseLocaleList(text, vocabulary.locales)));
    else if (name === 'include') include = collect(problems, () => parseInclude(text, vocabulary.include)) ?? [];
    else if (name === 'status') status = collect(problems, () => parseStatus(text)) ?? status;
    else if (isFieldsetParameter(name)) fieldsets.add(name, text);
    else {
      const detail = `The query parameter ${echo(name)} does not apply to a single record; use locale, include, status or fields[type].`;
      report(problems, unknownParameter(name, detail));
    }
  }
  throwProblems(problems);
  return { ...locales, include, fields: fieldsets.fields, status };
};

/** The query of a write: only `locale` (the language the write is in). */
export const parseWriteQuery = (query: URLSearchParams, vocabulary: { locales: readonly string[] | null }): { locale: string | null } => {
  const problems: ErrorObject[] = [];
  let locale: string | null = null;
  for (const [name, text] of singleParameters(query, problems)) {
    if (name === 'locale') locale = collect(problems, () => parseLocale(text, vocabulary.locales)) ?? null;
    else report(problems, unknownParameter(name, `The query parameter ${echo(name)} does not apply to a write; only locale does.`));
  }
  throwProblems(problems);
  return { locale };
};
