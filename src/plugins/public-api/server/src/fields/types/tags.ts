/**
 * `tags`: a list of non-empty strings, kept in a JSON column by the plugin's custom field. Pure.
 */
import { toTags } from '../../values/database';
import type { ColumnCodec } from '../codec';
import { acceptValue, describe, refuse, violation } from '../judge';

/** The plugin's custom field (register.ts); Strapi stores it as `json`. */
export const TAGS_CUSTOM_FIELD = 'plugin::public-api.tags';

export const tags: ColumnCodec = {
  type: 'tags',
  storage: 'column',
  scalar: false,
  accepts: (attribute) => attribute.type === 'json' && attribute.customField === TAGS_CUSTOM_FIELD,
  serialize: toTags,
  readSchema: () => ({ schema: { type: 'array', items: { type: 'string' } }, nullable: 'never' }),
  parseWrite: (raw, field, { pointer }) => {
    if (raw === null) return acceptValue(null);
    if (!Array.isArray(raw)) return refuse(violation(pointer, `'${field.key}' takes an array of strings, not ${describe(raw)}.`));
    const violations = raw.flatMap((tag, index) =>
      typeof tag === 'string' && tag.trim() !== ''
        ? []
        : [
            violation(
              `${pointer}/${index}`,
              `A tag is a non-empty string, not ${typeof tag === 'string' ? 'a blank one' : describe(tag)}.`,
            ),
          ],
    );
    return violations.length ? refuse(...violations) : acceptValue([...raw]);
  },
  writeSchema: () => ({ schema: { type: 'array', items: { type: 'string', minLength: 1 } }, nullable: 'unless-required' }),
  filter: () => null,
  sortKind: 'text',
  sortable: () => false,
};
