/**
 * Media fields: `image` and `file` (one asset), `images` and `files` (a list). They differ only in how
 * many assets they hold and whether they take images only; reads hand them the asset objects of their
 * linked files, writes name existing assets by id. Pure.
 */
import type { StrapiAttribute } from '../../registry/types';
import type { AssetRef, LinkCodec, Violation } from '../codec';
import { accept, describe, isObject, judgeItems, refuse, violation } from '../judge';

const MIME_PATTERNS: Record<string, string[]> = {
  images: ['image/*'],
  videos: ['video/*'],
  audios: ['audio/*'],
  files: ['application/*', 'text/*'],
};

const onlyImages = (allowed: string[] | null | undefined) =>
  Array.isArray(allowed) && allowed.length > 0 && allowed.every((type) => type === 'images');

/** The MIME patterns a media attribute accepts, e.g. `image/*`. */
const mediaAllowedTypes = (allowed: string[] | null | undefined): string[] => {
  if (!Array.isArray(allowed) || allowed.length === 0) return ['*/*'];
  return [...new Set(allowed.flatMap((type) => MIME_PATTERNS[type] ?? [type.includes('/') ? type : `${type}/*`]))];
};

const assetRef = (key: string, pointer: string, raw: unknown): AssetRef | Violation => {
  if (typeof raw === 'string' && raw !== '') return { id: raw, pointer };
  if (isObject(raw) && typeof raw.id === 'string' && raw.id !== '') return { id: raw.id, pointer };
  return violation(pointer, `'${key}' takes assets by id: a string, or an object with an \`id\` (as reads show them).`);
};

const isAssetRef = (value: AssetRef | Violation): value is AssetRef => 'id' in value;

const mediaCodec = (type: LinkCodec['type'], many: boolean, images: boolean): LinkCodec => ({
  type,
  storage: 'media',
  cardinality: many ? 'many' : 'one',
  scalar: false,
  accepts: (attribute: StrapiAttribute) =>
    attribute.type === 'media' && Boolean(attribute.multiple) === many && onlyImages(attribute.allowedTypes) === images,
  details: (attribute) => ({ allowedTypes: mediaAllowedTypes(attribute.allowedTypes) }),
  serialize: (items) => (many ? items : (items[0] ?? null)),
  // A file may be gone or not yet linked whatever the schema says.
  readSchema: (_field, kit) =>
    many ? { schema: { type: 'array', items: kit.asset() }, nullable: 'never' } : { schema: kit.asset(), nullable: 'always' },
  parseWrite: (raw, field, { pointer }) => {
    if (raw === null) return accept({ kind: 'media', refs: [] });
    if (!many) {
      const ref = assetRef(field.key, pointer, raw);
      return isAssetRef(ref) ? accept({ kind: 'media', refs: [ref] }) : refuse(ref);
    }
    if (!Array.isArray(raw)) return refuse(violation(pointer, `'${field.key}' takes an array of assets, not ${describe(raw)}.`));
    const judged = judgeItems(raw, pointer, (item, itemPointer) => assetRef(field.key, itemPointer, item));
    return judged.ok ? accept({ kind: 'media', refs: judged.items }) : refuse(...judged.violations);
  },
  writeSchema: (_field, kit) =>
    many
      ? { schema: { type: 'array', items: kit.assetInput(), description: 'null is the empty list.' }, nullable: 'always' }
      : { schema: kit.assetInput(), nullable: 'unless-required' },
  filter: () => null,
  sortKind: 'text',
  sortable: () => false,
});

export const image = mediaCodec('image', false, true);
export const file = mediaCodec('file', false, false);
export const images = mediaCodec('images', true, true);
export const files = mediaCodec('files', true, false);
