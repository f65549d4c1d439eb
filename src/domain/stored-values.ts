/**
 * The values a document holds now, as the next write will find them. Strapi glue.
 *
 * An update edits the draft of one locale. When that locale does not exist yet the update creates
 * it, and Strapi fills its non-localized fields from another locale of the document (the row
 * `copyNonLocalizedFields` picks); localized fields then start empty. Both cases are reproduced here
 * so a rule sees exactly what the new row will hold.
 */
import type { Core, Schema } from '@strapi/strapi';
import type { LocaleChoice } from './document-write';
import type { RecordValues } from './rules';

type I18nContentTypes = {
  isLocalizedContentType: (contentType: Schema.ContentType) => boolean;
  getNonLocalizedAttributes: (contentType: Schema.ContentType) => string[];
};

type I18nLocales = { getDefaultLocale: () => Promise<string | null> };

const i18nContentTypes = (strapi: Core.Strapi): I18nContentTypes => strapi.plugin('i18n').service('content-types') as I18nContentTypes;

export const isLocalized = (strapi: Core.Strapi, contentType: Schema.ContentType): boolean =>
  Boolean(strapi.plugin('i18n')) && i18nContentTypes(strapi).isLocalizedContentType(contentType);

const hasDraftAndPublish = (contentType: Schema.ContentType): boolean => contentType.options?.draftAndPublish === true;

const pick = (row: Record<string, unknown>, fields: readonly string[]): RecordValues =>
  Object.fromEntries(fields.filter((field) => field in row).map((field) => [field, row[field]]));

export const loadStoredValues = async (
  strapi: Core.Strapi,
  contentType: Schema.ContentType,
  documentId: string,
  localeChoice: LocaleChoice,
  fields: readonly string[],
): Promise<RecordValues> => {
  const query = strapi.db.query(contentType.uid);
  const select = ['id', ...fields];
  const draftOnly = hasDraftAndPublish(contentType) ? { publishedAt: null } : {};
  const localized = isLocalized(strapi, contentType);

  const locale =
    localized && localeChoice === null ? await (strapi.plugin('i18n').service('locales') as I18nLocales).getDefaultLocale() : localeChoice;
  if (!localized || locale === '*' || locale === null) {
    const row = (await query.findOne({ select, where: { documentId, ...draftOnly } })) as Record<string, unknown> | null;
    // With several locales at stake only the shared (non-localized) values are one value.
    const shared = localized ? i18nContentTypes(strapi).getNonLocalizedAttributes(contentType) : fields;
    return row
      ? pick(
          row,
          fields.filter((field) => shared.includes(field)),
        )
      : {};
  }

  const draft = (await query.findOne({ select, where: { documentId, locale, ...draftOnly } })) as Record<string, unknown> | null;
  if (draft) return pick(draft, fields);

  // A new locale of an existing document: Strapi copies the shared values from this row.
  const sibling = (await query.findOne({
    select,
    where: { documentId },
    orderBy: { publishedAt: 'desc' },
  })) as Record<string, unknown> | null;
  if (!sibling) return {};
  const shared = i18nContentTypes(strapi).getNonLocalizedAttributes(contentType);
  return pick(
    sibling,
    fields.filter((field) => shared.includes(field)),
  );
};
