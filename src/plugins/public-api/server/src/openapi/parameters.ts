/**
 * Query parameters of reads, cut to what this key may use on one resource (contract sections 5, 6 and
 * 14): `sort` keys, `include` paths, `filter` fields and operators, `fields[type]` names and `locale`
 * codes as enums.
 */
import { FILTER_KINDS } from '../fields/filter-kinds';
import { recordTypeTree } from '../grants/fieldset-projection';
import { includeTree, queryVocabulary, takesLocale } from '../grants/projection';
import { MAX_CURSOR_LENGTH } from '../query/cursor';
import { MAX_FILTERS, operatorApplies } from '../query/filters';
import { MAX_INCLUDE_DEPTH, MAX_INCLUDE_PATHS, expandablePaths } from '../query/include';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_LOCALES } from '../query/parse';
import { FILTER_OPERATORS, type FilterOperator, type FilterTarget, type QueryVocabulary } from '../query/types';
import type { Resource } from '../registry/types';
import type { DocumentContext } from './context';
import { fieldsetParameters } from './fields-parameters';
import { object } from './schema';
import type { ParameterObject, Ref, Schema } from './types';

/** Above this many include paths the enum gives way to a pattern over the expandable field names. */
export const MAX_INCLUDE_ENUM = 500;

export const vocabularyOf = (context: DocumentContext, resource: Resource): QueryVocabulary => {
  const projection = context.projectionOf(resource);
  return queryVocabulary(
    projection,
    context.locales,
    includeTree(projection, context.projectionOf),
    recordTypeTree(projection, context.projectionOf),
  );
};

const limit = (context: DocumentContext): Ref =>
  context.components.parameter('Limit', () => ({
    name: 'limit',
    in: 'query',
    description: `Page size, 1 to ${MAX_LIMIT}.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  }));

const cursor = (context: DocumentContext): Ref =>
  context.components.parameter('Cursor', () => ({
    name: 'cursor',
    in: 'query',
    description:
      'The opaque cursor of the next page (`meta.page.nextCursor`). It is bound to the sort, filters and locale that produced it and expires after 24 hours; `links.next` carries it ready to use.',
    schema: { type: 'string', minLength: 1, maxLength: MAX_CURSOR_LENGTH },
  }));

export const localeParameter = (context: DocumentContext): Ref =>
  context.components.parameter('Locale', () => ({
    name: 'locale',
    in: 'query',
    description:
      'The language of localized fields (read, or written), and of the localized records relations lead to; the default locale when absent. A localized record missing in the locale is not found.',
    schema: context.locales.length ? { type: 'string', enum: [...context.locales] } : { type: 'string' },
  }));

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Up to this many lists are enumerated (narrow client types); beyond it the schema is a pattern. */
const MAX_ENUMERATED_LOCALE_LISTS = 64;

/** Every ordered list of distinct codes, shortest first, or null once there would be more than `cap`. */
const localeLists = (codes: readonly string[], cap: number): string[] | null => {
  const lists: string[] = [];
  let level: string[][] = codes.map((code) => [code]);
  for (let length = 1; length <= MAX_LOCALES && level.length; length += 1) {
    if (lists.length + level.length > cap) return null;
    lists.push(...level.map((list) => list.join(',')));
    level = level.flatMap((list) => codes.filter((code) => !list.includes(code)).map((code) => [...list, code]));
  }
  return lists;
};

/**
 * A read's `locale`: one configured code or an ordered fallback list of up to MAX_LOCALES distinct ones
 * (contract section 15), enumerated while there are few (so generated clients keep a narrow type), else
 * a pattern (which cannot say "distinct"; the read answers a repeat with 400). Writes take one code
 * (`localeParameter`).
 */
export const localeListParameter = (context: DocumentContext): Ref =>
  context.components.parameter('LocaleList', () => {
    const lists = localeLists(context.locales, MAX_ENUMERATED_LOCALE_LISTS);
    const code = `(?:${context.locales.map(escapeRegExp).join('|')})`;
    const schema: Schema = !context.locales.length
      ? { type: 'string' }
      : lists
        ? { type: 'string', enum: lists }
        : { type: 'string', pattern: `^${code}(?:,${code}){0,${MAX_LOCALES - 1}}$` };
    return {
      name: 'locale',
      in: 'query',
      description: `The language of localized fields, and of the localized records relations lead to; the default locale when absent. An ordered list of up to ${MAX_LOCALES} distinct locales (\`de-CH,de,en\`) answers each record in the first listed locale it exists in, and its \`meta.locale\` says which. A localized record missing in every listed locale is not found.`,
      schema,
    };
  });

/** `status`, for preview keys only: other keys cannot use it (403), so their documents do not name it. */
const status = (context: DocumentContext): Ref[] =>
  context.preview
    ? [
        context.components.parameter('Status', () => ({
          name: 'status',
          in: 'query',
          description:
            'Which version of each record to read: `published` (the default) or `draft`, the latest draft, also of included records. A draft read is answered with `Cache-Control: no-store`, its records carry `meta.status`, and its cursors serve draft reads only.',
          schema: { type: 'string', enum: ['published', 'draft'], default: 'published' },
        })),
      ]
    : [];

const sort = (vocabulary: QueryVocabulary): ParameterObject => {
  const keys = [...vocabulary.sortable];
  const byDefault = vocabulary.defaultSort?.length ? vocabulary.defaultSort.map((term) => term.key).join(', ') + ', then id' : 'id';
  return {
    name: 'sort',
    in: 'query',
    description: `Comma-separated sort keys, each once; a leading \`-\` sorts descending. Every order ends with \`id\`; nulls come last ascending and first descending. Default: ${byDefault}.`,
    style: 'form',
    explode: false,
    schema: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', enum: keys.flatMap((key) => [key, `-${key}`]) },
    },
  };
};

const include = (vocabulary: QueryVocabulary): ParameterObject | null => {
  if (vocabulary.include.size === 0) return null;
  const paths = expandablePaths(vocabulary.include);
  const description = `Comma-separated relation paths to expand in place (dot-separated for nesting, at most ${MAX_INCLUDE_DEPTH} levels and ${MAX_INCLUDE_PATHS} paths).`;
  let item: Schema;
  if (paths.length <= MAX_INCLUDE_ENUM) {
    item = { type: 'string', enum: paths };
  } else {
    const names = [...new Set(paths.flatMap((path) => path.split('.')))].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const segment = `(?:${names.join('|')})`;
    item = { type: 'string', pattern: `^${segment}(?:\\.${segment}){0,${MAX_INCLUDE_DEPTH - 1}}$` };
  }
  return {
    name: 'include',
    in: 'query',
    description,
    style: 'form',
    explode: false,
    schema: { type: 'array', minItems: 1, maxItems: MAX_INCLUDE_PATHS, uniqueItems: true, items: item },
  };
};

const valueSchema = (target: FilterTarget): Schema => FILTER_KINDS[target.type].schema(target);

const operatorSchema = (op: FilterOperator, target: FilterTarget): Schema => {
  switch (op) {
    case 'in':
      return { type: 'string', minLength: 1, description: 'A comma-separated list of values (at most 100).' };
    case 'null':
      return { type: 'boolean', description: 'true: the field is empty; false: it is not.' };
    case 'contains':
    case 'startsWith':
      return { ...valueSchema(target), minLength: 1 };
    default:
      return valueSchema(target);
  }
};

const filter = (vocabulary: QueryVocabulary): ParameterObject | null => {
  if (vocabulary.filterable.size === 0) return null;
  const properties: Record<string, Schema> = {};
  for (const [key, target] of vocabulary.filterable) {
    const operators = FILTER_OPERATORS.filter((op) => operatorApplies(op, target.type));
    properties[key] = {
      oneOf: [
        valueSchema(target),
        object(Object.fromEntries(operators.map((op) => [op, operatorSchema(op, target)])), [], { minProperties: 1 }),
      ],
    };
  }
  return {
    name: 'filter',
    in: 'query',
    description: `Conditions, all of which apply: \`filter[field]=value\` (equality) or \`filter[field][operator]=value\`. At most ${MAX_FILTERS} conditions.`,
    style: 'deepObject',
    explode: true,
    schema: { type: 'object', properties, additionalProperties: false, minProperties: 1, maxProperties: MAX_FILTERS },
  };
};

/** The parameters of a collection page. */
export const collectionParameters = (context: DocumentContext, resource: Resource): (ParameterObject | Ref)[] => {
  const vocabulary = vocabularyOf(context, resource);
  return [
    limit(context),
    cursor(context),
    sort(vocabulary),
    ...(takesLocale(context.projectionOf(resource)) ? [localeListParameter(context)] : []),
    ...[include(vocabulary), filter(vocabulary)].filter((parameter): parameter is ParameterObject => parameter !== null),
    ...fieldsetParameters(vocabulary),
    ...status(context),
  ];
};

/** The parameters of a single record or a singleton: locale, include, fields[type] and (preview keys) status only. */
export const recordParameters = (context: DocumentContext, resource: Resource): (ParameterObject | Ref)[] => {
  const vocabulary = vocabularyOf(context, resource);
  const included = include(vocabulary);
  return [
    ...(takesLocale(context.projectionOf(resource)) ? [localeListParameter(context)] : []),
    ...(included ? [included] : []),
    ...fieldsetParameters(vocabulary),
    ...status(context),
  ];
};
