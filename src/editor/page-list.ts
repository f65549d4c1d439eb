/**
 * The content manager's Page list shows each page's website: pages of several websites share one list,
 * and the title alone does not say where a page is published. Strapi generates the list view from the
 * schema (its first four listable fields, which leave the website out); the application adds the website
 * column on bootstrap, but only while the list is still the generated one: a list an admin arranged
 * (Configure the view) is theirs and is never touched, nor is it put back after they remove the column.
 */
import type { Core } from '@strapi/strapi';

export const PAGE_UID = 'api::page.page';
const WEBSITE_FIELD = 'website';
/** The website field shows the website's name, not its id. */
const WEBSITE_MAIN_FIELD = 'name';

/** As many fields as the content manager puts in a generated list view. */
const GENERATED_LIST_LENGTH = 4;
const NON_LISTABLE_TYPES = new Set(['json', 'password', 'richtext', 'dynamiczone', 'blocks']);

type Attribute = { type: string; relation?: string; relationType?: string };
type Model = { uid: string; attributes: Record<string, Attribute>; config?: { attributes?: Record<string, { hidden?: boolean }> } };
type Metadata = { edit?: Record<string, unknown>; list?: Record<string, unknown> };
type Configuration = {
  uid: string;
  settings: Record<string, unknown>;
  metadatas: Record<string, Metadata>;
  layouts: { list: string[]; edit: unknown };
};
type ContentTypesService = {
  findContentType(uid: string): Model | undefined;
  findConfiguration(model: Model): Promise<Configuration>;
  updateConfiguration(model: Model, configuration: Omit<Configuration, 'uid'>): Promise<Configuration>;
};

const isListable = (model: Model, name: string): boolean => {
  const attribute = model.attributes[name];
  if (!attribute || model.config?.attributes?.[name]?.hidden === true) return false;
  return !NON_LISTABLE_TYPES.has(attribute.type);
};

/** The list view the content manager generates for a model (its first listable fields, in schema order). Pure. */
export const generatedList = (model: Model): string[] =>
  Object.keys(model.attributes)
    .filter((name) => name !== 'documentId' && isListable(model, name))
    .slice(0, GENERATED_LIST_LENGTH);

/** The list with the website column after the title (or last), when the list is still the generated one. Pure. */
export const withWebsiteColumn = (list: string[], generated: string[]): string[] | null => {
  const untouched = list.length === generated.length && list.every((name, index) => name === generated[index]);
  if (!untouched || list.includes(WEBSITE_FIELD)) return null;
  const after = list.indexOf('title');
  return after === -1 ? [...list, WEBSITE_FIELD] : [...list.slice(0, after + 1), WEBSITE_FIELD, ...list.slice(after + 1)];
};

export const showWebsiteInPageList = async (strapi: Core.Strapi): Promise<void> => {
  const contentTypes = strapi.plugin('content-manager')?.service('content-types') as ContentTypesService | undefined;
  const model = contentTypes?.findContentType(PAGE_UID);
  if (!contentTypes || !model || !model.attributes[WEBSITE_FIELD]) return;
  const { uid: _uid, ...configuration } = await contentTypes.findConfiguration(model);
  const list = withWebsiteColumn(configuration.layouts.list, generatedList(model));
  if (!list) return;
  const metadata = configuration.metadatas[WEBSITE_FIELD] ?? {};
  await contentTypes.updateConfiguration(model, {
    ...configuration,
    layouts: { ...configuration.layouts, list },
    metadatas: {
      ...configuration.metadatas,
      [WEBSITE_FIELD]: {
        ...metadata,
        // The generated label is the field's name; the column reads better capitalised.
        list: { ...metadata.list, ...(metadata.list?.label === WEBSITE_FIELD ? { label: 'Website' } : {}), mainField: WEBSITE_MAIN_FIELD },
        edit: { ...metadata.edit, mainField: WEBSITE_MAIN_FIELD },
      },
    },
  });
  strapi.log.info('[editor] The Page list in the content manager now shows each page’s website.');
};
