/**
 * Rows -> record objects with their references, files and `include` expansions. Each level costs one
 * query per shown relation field, one for files, one for the files of images embedded in richtext
 * (when there are any) and one per expanded field, whatever the number of rows, so a page of 100
 * records costs what a page of 5 does. A field a fieldset leaves out costs nothing.
 */
import { shownProjection } from '../grants/fieldset-projection';
import type { Projection } from '../grants/projection';
import type { Fieldsets, IncludeSpec } from '../query/types';
import { isStoredIn } from '../fields/table';
import type { Field } from '../registry/types';
import { shownReferences } from '../fields/types/relation';
import { readAll } from '../database/connection';
import type { ComponentLink, CurrentImageFile, FileRow, RecordRow, Related, TargetRef } from '../serialize/rows';
import type { ComponentItem } from '../fields/codec';
import { componentSpecs } from './component-include';
import type { Asset } from '../serialize/assets';
import { recordSerializer, type RecordObject } from '../serialize/record';
import type { RecordTextCache } from '../serialize/record-texts';
import type { RichtextDoc } from '../richtext';
import { componentRichtextIdentity, imageIdsOf, recordVersion, richtextIdentity } from '../serialize/richtext-read';
import { isRichtextField } from '../fields/items';

export type RecordSource = {
  /**
   * References per owner row, each target document once; where the target is localized, in `language`,
   * or with a `fallback` list in the first of `language, ...fallback` the target document has.
   */
  relations: (
    projection: Projection,
    rowIds: number[],
    fields: string[],
    language: string | null,
    fallback: readonly string[],
  ) => Promise<Related<TargetRef>>;
  media: (projection: Projection, rows: RecordRow[], fields: string[]) => Promise<Related<FileRow>>;
  byRowIds: (projection: Projection, rowIds: number[], language: string | null, fallback: readonly string[]) => Promise<RecordRow[]>;
  /** The files images embedded in richtext name, as they are now, by documentId. */
  imageFiles: (documentIds: string[]) => Promise<Map<string, CurrentImageFile>>;
  /** The component values of component `fields` of the owner rows (of content type or component `ownerUid`), in order. */
  componentLinks: (ownerUid: string, ownerRowIds: readonly number[], fields: readonly Field[]) => Promise<Related<ComponentLink>>;
  /** Rows of one component's table, with the columns its projection shows. */
  componentRows: (projection: Projection, rowIds: readonly number[]) => Promise<RecordRow[]>;
};

export type LoadContext = {
  source: RecordSource;
  /**
   * The locale of every localized record the read reaches: the request's `locale`, else the default.
   * One for the whole read, so that a record that is not localized (a building) shows its localized
   * targets (events) in the language asked for, at every level of `include`.
   */
  language: string | null;
  /**
   * The locales after `language` of a read's fallback list (contract section 15), empty without one: each
   * localized record the read reaches (references and `include`, at every level) is its document's row in
   * the first of `language, ...fallback` it has, whatever locale the link names.
   */
  fallback: readonly string[];
  projectionOf: (resource: Projection['resource']) => Projection;
  /** The read's sparse fieldsets, applied to every level of `include` (none: every readable field). */
  fieldsets: Fieldsets;
  asset: (file: FileRow) => Asset;
  /**
   * The stored blocks value (JSON text or parsed) -> the richtext document, its images as stored;
   * `identity` (`richtextIdentity`: row, field, version) names the value for the conversion cache.
   */
  richtext: (raw: unknown, identity?: string) => RichtextDoc | null;
  /** The document with its images pointing at their files as they are now. */
  currentImages: (doc: RichtextDoc | null, files: ReadonlyMap<string, CurrentImageFile>) => RichtextDoc | null;
  /**
   * Where records are kept by their inputs (serialize/record-texts.ts), with what else their URLs depend on
   * (the base URL and the asset key, as one text); none: every record is made afresh.
   */
  kept?: { cache: RecordTextCache; partition: string };
};

/**
 * The version of the record each linked component row belongs to (`RecordRow.version`), by component and
 * row id: a record's row gives its own (`recordVersion`), a component row passes on the one it was given,
 * so nested components carry their top-level record's. A row without one (none known) gives none.
 */
export const componentVersions = (
  owner: Projection,
  rows: readonly RecordRow[],
  links: Related<ComponentLink>,
): Map<string, Map<number, string>> => {
  const ownVersion = new Map<number, string>();
  for (const row of rows) {
    const version = row.updatedAt !== undefined ? recordVersion(owner.resource.uid, row.rowId, row.updatedAt) : row.version;
    if (version !== undefined) ownVersion.set(row.rowId, version);
  }
  const versions = new Map<string, Map<number, string>>();
  for (const byOwner of links.values()) {
    for (const [ownerId, list] of byOwner) {
      const version = ownVersion.get(ownerId);
      if (version === undefined) continue;
      for (const link of list) {
        let byRow = versions.get(link.component);
        if (!byRow) versions.set(link.component, (byRow = new Map()));
        byRow.set(link.rowId, version);
      }
    }
  }
  return versions;
};

/**
 * The values of the component fields `fields` of the rows, read out: the links (one query for the owner
 * table), then per component reached one query for its rows, each loaded as records are (its files,
 * relations, richtext, nested components and the `include` paths through it), so a level of components
 * costs the same queries whatever the number of records. Items keep the order of their field.
 */
const loadComponents = async (
  context: LoadContext,
  projection: Projection,
  rows: readonly RecordRow[],
  fields: readonly Field[],
  include: readonly IncludeSpec[],
): Promise<Related<ComponentItem>> => {
  const result: Related<ComponentItem> = new Map();
  if (fields.length === 0) return result;
  const links = await context.source.componentLinks(
    projection.resource.uid,
    rows.map((row) => row.rowId),
    fields,
  );
  const idsByComponent = new Map<string, Set<number>>();
  for (const byOwner of links.values()) {
    for (const list of byOwner.values()) {
      for (const link of list) {
        let ids = idsByComponent.get(link.component);
        if (!ids) idsByComponent.set(link.component, (ids = new Set()));
        ids.add(link.rowId);
      }
    }
  }
  const versions = componentVersions(projection, rows, links);
  const attributes = new Map<string, Map<number, RecordObject>>();
  await readAll(
    [...idsByComponent].map(([uid, ids]) => async () => {
      const component = projection.components.get(uid);
      if (!component) return;
      const byRow = versions.get(uid);
      const componentRows = (await context.source.componentRows(component, [...ids])).map((row) => {
        const version = byRow?.get(row.rowId);
        return version === undefined ? row : { ...row, version };
      });
      const records = await loadRecords(context, component, componentRows, componentSpecs(fields, uid, include));
      attributes.set(uid, new Map(componentRows.map((row, index) => [row.rowId, records[index]!])));
    }),
  );
  for (const [key, byOwner] of links) {
    const items = new Map<number, ComponentItem[]>();
    for (const [owner, list] of byOwner) {
      const values: ComponentItem[] = [];
      for (const link of list) {
        const value = attributes.get(link.component)?.get(link.rowId);
        // A list inside cut to the cap (`meta.truncated` of the component's own record) marks the item.
        if (value)
          values.push({ component: link.component, attributes: value.attributes, ...(value.meta.truncated ? { truncated: true } : {}) });
      }
      items.set(owner, values);
    }
    result.set(key, items);
  }
  return result;
};

/**
 * `projection` is what the rows show (`shownProjection` of the read's own level, applied by the caller,
 * who selected the rows with it); each level `include` expands is cut to its fieldset here. A component's
 * projection loads its rows the same way (`loadComponents`).
 */
export const loadRecords = async (
  context: LoadContext,
  projection: Projection,
  rows: RecordRow[],
  include: readonly IncludeSpec[],
): Promise<RecordObject[]> => {
  if (rows.length === 0) return [];
  const relationFields = projection.readable.filter((field) => isStoredIn(field, 'relation')).map((field) => field.key);
  const mediaFields = projection.readable.filter((field) => isStoredIn(field, 'media')).map((field) => field.key);
  const componentFields = projection.readable.filter((field) => isStoredIn(field, 'component'));
  // Richtext is converted here, each value looked up by its record's identity and version (not by its
  // text); its images' files are read with the other files.
  const richtextFields = projection.readable.filter((field) => isRichtextField(field)).map((field) => field.key);
  const docs = new Map<RecordRow, Map<string, RichtextDoc | null>>();
  const imageIds = new Set<string>();
  // Rows whose richtext shows images: their records point at the files as they are now, not among their inputs.
  const withImages = new Set<RecordRow>();
  for (const row of richtextFields.length ? rows : []) {
    const converted = new Map<string, RichtextDoc | null>();
    for (const key of richtextFields) {
      const raw = row.values[key];
      if (raw === null || raw === undefined) continue;
      // A component row has no `updatedAt` of its own: it is keyed by its record's version (`componentVersions`).
      const identity =
        row.updatedAt !== undefined
          ? richtextIdentity(projection.resource.uid, row.rowId, key, row.updatedAt)
          : row.version !== undefined
            ? componentRichtextIdentity(projection.resource.uid, row.rowId, key, row.version)
            : undefined;
      const doc = context.richtext(raw, identity);
      converted.set(key, doc);
      for (const id of imageIdsOf(doc)) {
        imageIds.add(id);
        withImages.add(row);
      }
    }
    docs.set(row, converted);
  }
  const [references, files, imageFiles, components] = (await readAll<unknown>([
    () =>
      context.source.relations(
        projection,
        rows.map((row) => row.rowId),
        relationFields,
        context.language,
        context.fallback,
      ),
    () => context.source.media(projection, rows, mediaFields),
    () => (imageIds.size ? context.source.imageFiles([...imageIds]) : Promise.resolve(new Map())),
    () => loadComponents(context, projection, rows, componentFields, include),
  ])) as [Related<TargetRef>, Related<FileRow>, Map<string, CurrentImageFile>, Related<ComponentItem>];
  /** The document of a row's value: the serializer hands over the value itself, the very one converted above. */
  const richtext = (raw: unknown, row: RecordRow) => {
    const converted = docs.get(row);
    const key = richtextFields.find((candidate) => row.values[candidate] === raw);
    return context.currentImages(key !== undefined && converted?.has(key) ? converted.get(key)! : context.richtext(raw), imageFiles);
  };

  const expanded = new Map<string, Map<number, RecordObject>>();
  await readAll(
    include.map((spec) => async () => {
      const target = projection.targets.get(spec.field);
      if (!target) return;
      const targetProjection = shownProjection(context.projectionOf(target), context.fieldsets, spec.include);
      const ids = new Set<number>();
      // Only what the records show: a list cut to the cap expands its shown references alone.
      for (const refs of references.get(spec.field)?.values() ?? []) for (const ref of shownReferences(refs)) ids.add(ref.rowId);
      const targetRows = await context.source.byRowIds(targetProjection, [...ids], context.language, context.fallback);
      const records = await loadRecords(context, targetProjection, targetRows, spec.include);
      expanded.set(spec.field, new Map(targetRows.map((row, index) => [row.rowId, records[index]!])));
    }),
  );

  // Records expanded by `include` are not among their holders' inputs: a level that expands any keeps none.
  const kept = context.kept && expanded.size === 0 ? { ...context.kept, skip: (row: RecordRow) => withImages.has(row) } : undefined;
  return rows.map(recordSerializer(projection, { references, files, asset: context.asset, richtext, expanded, components, kept }));
};
