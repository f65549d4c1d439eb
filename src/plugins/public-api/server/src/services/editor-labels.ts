/**
 * The labels editors see: the content manager keeps, per content type, a configuration whose
 * `metadatas.<field>.edit.label` is the field's label in its edit view (the field's name until an admin
 * renames it). The admin's grant editor shows the same words, so an editor recognises the fields.
 * One read of Strapi's core store for every content type at once.
 */
import type { Core } from '@strapi/strapi';
import { editorLabelsOf } from '../registry/editor-labels';

const CONFIGURATION_PREFIX = 'plugin_content_manager_configuration_content_types::';

type StoreRow = { key: string; value: unknown };

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** Labels by content type uid, then field; only the ones an admin set (not the bare field names). */
  async byContentType(): Promise<Map<string, Record<string, string>>> {
    const rows = (await strapi.db.query('strapi::core-store').findMany({
      where: { key: { $startsWith: CONFIGURATION_PREFIX } },
      select: ['key', 'value'],
    })) as StoreRow[];
    return new Map(rows.map((row) => [row.key.slice(CONFIGURATION_PREFIX.length), editorLabelsOf(row.value)]));
  },
});
