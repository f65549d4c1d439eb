/**
 * Writes through Strapi's document service (contract section 7): create, update, remove and archive a
 * record of a resource, in one locale, as the key may.
 *
 * Every method here runs inside the transaction of the request (`database/connection.ts` `inTransaction`,
 * opened by the write wrapper). The document service wraps each of its calls in `strapi.db.transaction`,
 * which joins an open transaction instead of starting its own, so the draft, its publication, relation
 * rows, i18n's copies of shared fields, the read-back and the idempotency record commit together or not
 * at all: when anything fails after the first change, nothing of the write remains.
 *
 * Values reach Strapi only after `write/attributes.ts` has judged their shapes and this service has
 * resolved every reference; Strapi then applies the content type's validation and the domain rules
 * exactly as for the admin.
 */
import type { Core } from '@strapi/strapi';
import { allows, type Projection } from '../grants/projection';
import { apiError, apiErrors, errorObject, type ErrorObject } from '../http/errors';
import type { ApiKey } from '../keys/types';
import { echo } from '../query/problems';
import type { Resource } from '../registry/types';
import { docToBlocks, imageAttrsOf, type BlocksImageFile, type ImageLookup } from '../serialize/richtext';
import { MAX_REPORTED_PROBLEMS, type AttributePlan, type AssetRef, type PlannedField, type RelationRef } from '../write/attributes';
import { attributePointer } from '../write/pointer';
import { getService } from '../utils/get-service';
import type { SlugScope } from './slugs';

const FILE_UID = 'plugin::upload.file';

/** Who writes what where: the resource as the key sees it, and the locale the write is in. */
export type WriteTarget = {
  key: ApiKey;
  projection: Projection;
  /** The locale of the write for localized resources; null for the others. */
  locale: string | null;
  /**
   * The locale of the localized records references name: the write's locale, also for resources that
   * are not localized (the `locale` parameter, else the default), as reads show their references.
   */
  language: string;
};

type FileRow = {
  id: number;
  documentId: string;
  name: string;
  mime: string;
  width: number | null;
  height: number | null;
  [column: string]: unknown;
};

type VersionRow = { id: number; publishedAt: unknown; updatedAt: unknown; [attribute: string]: unknown };

const millis = (value: unknown): number => (value instanceof Date ? value.getTime() : new Date(value as string | number).getTime());

const iso = (value: unknown): string | null =>
  value === null || value === undefined ? null : new Date(value instanceof Date ? value : (value as string | number)).toISOString();

/** `image/*`, `application/pdf`, `*\/*` against a MIME type. */
export const mimeAllowed = (patterns: readonly string[] | undefined, mime: string): boolean =>
  !patterns ||
  patterns.some((pattern) => pattern === '*/*' || pattern === mime || (pattern.endsWith('/*') && mime.startsWith(pattern.slice(0, -1))));

const unprocessable = (problems: ErrorObject[]) => apiErrors(422, problems.slice(0, MAX_REPORTED_PROBLEMS));

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const documents = (uid: string) => strapi.documents(uid as Parameters<typeof strapi.documents>[0]) as unknown as {
    create: (params: Record<string, unknown>) => Promise<{ documentId: string }>;
    update: (params: Record<string, unknown>) => Promise<{ documentId: string } | null>;
    delete: (params: Record<string, unknown>) => Promise<unknown>;
    unpublish: (params: Record<string, unknown>) => Promise<unknown>;
  };
  const query = (uid: string) => strapi.db.query(uid as Parameters<typeof strapi.db.query>[0]);

  /** The locale of a reference's target: the write's language (Strapi's rule when both sides are localized). */
  const targetLocale = (target: WriteTarget, resource: Resource): string | null => (resource.localized ? target.language : null);

  // -------------------------------------------------------------------------------------------------------
  // References
  // -------------------------------------------------------------------------------------------------------

  /**
   * The value Strapi is given for a relation field: the links reads show (`current`, on updates) are
   * disconnected and the list is connected in its order, or nothing at all when the list is the one
   * reads show. Not a `set`: Strapi links every version of a record on its own (each language, draft
   * and published), and a `set` would also drop the links reads do not show, those of other languages
   * (a building relates to each language version of an event separately) and those to another website's
   * records, which this key must not be able to touch.
   */
  const relationValue = (field: PlannedField, targets: string[], current: string[] | null, locale: string | null): unknown => {
    if (current && current.length === targets.length && current.every((documentId, index) => documentId === targets[index])) return undefined;
    const ref = (documentId: string) => (locale ? { documentId, locale } : { documentId });
    const many = field.field.type === 'relations';
    return {
      disconnect: (current ?? []).map(ref),
      connect: targets.map((documentId) => (many ? { ...ref(documentId), position: { end: true } } : ref(documentId))),
    };
  };

  /** What reads show now of the relation fields written, by field: target documentIds in order. */
  const currentReferences = async (target: WriteTarget, planned: PlannedField[], rowId: number): Promise<Map<string, string[]>> => {
    const fields = planned.filter((entry) => entry.planned.kind === 'relation').map((entry) => entry.field.key);
    if (fields.length === 0) return new Map();
    const related = await getService('records').relations(target.projection, [rowId], fields, target.language);
    return new Map(fields.map((field) => [field, (related.get(field)?.get(rowId) ?? []).map((ref) => ref.documentId)]));
  };

  /**
   * Relation fields -> Strapi's value for each (see `relationValue`), or a 422 per reference that names
   * no target. `rowId`: the record's published row, on updates.
   */
  const resolveRelations = async (target: WriteTarget, planned: PlannedField[], problems: ErrorObject[], rowId: number | null) => {
    const data: Record<string, unknown> = {};
    const current = rowId === null ? null : await currentReferences(target, planned, rowId);
    const byTarget = new Map<Resource, { field: PlannedField; refs: RelationRef[] }[]>();
    for (const entry of planned) {
      if (entry.planned.kind !== 'relation') continue;
      const resource = target.projection.targets.get(entry.field.key)!;
      const refs = entry.planned.refs;
      if (refs.length > 0 && !allows(target.key.grants, resource.id, 'read')) {
        problems.push(
          errorObject(422, `'${entry.field.key}' refers to ${resource.slug} records, which this key may not read.`, {
            source: { pointer: entry.pointer },
            reason: 'target_not_readable',
          })
        );
        continue;
      }
      const list = byTarget.get(resource) ?? [];
      list.push({ field: entry, refs });
      byTarget.set(resource, list);
    }
    for (const [resource, entries] of byTarget) {
      const locale = targetLocale(target, resource);
      const values = [...new Set(entries.flatMap(({ refs }) => refs.map((ref) => ref.value)))];
      const found = await getService('records').identify(resource, values, { locale });
      const bySlug = new Map(found.filter((row) => row.slug !== null).map((row) => [row.slug!, row]));
      const byId = new Map(found.map((row) => [row.documentId, row]));
      for (const { field, refs } of entries) {
        const targets: string[] = [];
        for (const ref of refs) {
          const row =
            ref.by === 'slug' ? bySlug.get(ref.value) : ref.by === 'id' ? byId.get(ref.value) : (bySlug.get(ref.value) ?? byId.get(ref.value));
          if (!row || (ref.alsoSlug !== undefined && row.slug !== ref.alsoSlug)) {
            problems.push(
              errorObject(422, `No ${resource.slug} record ${echo(ref.alsoSlug ? `${ref.value} (${ref.alsoSlug})` : ref.value)} exists for this reference.`, {
                source: { pointer: ref.pointer },
                reason: 'target_not_found',
              })
            );
            continue;
          }
          if (targets.includes(row.documentId)) {
            problems.push(errorObject(422, `This ${resource.slug} record is already referenced above.`, { source: { pointer: ref.pointer }, reason: 'target_repeated' }));
            continue;
          }
          targets.push(row.documentId);
        }
        const value = relationValue(field, targets, current?.get(field.field.key) ?? null, locale);
        if (value !== undefined) data[field.field.key] = value;
      }
    }
    return data;
  };

  /** The upload files the write names (media fields and richtext images), by asset id, in one query. */
  const loadFiles = async (planned: PlannedField[]): Promise<Map<string, FileRow>> => {
    const ids = new Set<string>();
    for (const entry of planned) {
      if (entry.planned.kind === 'media') for (const ref of entry.planned.refs) ids.add(ref.id);
      if (entry.planned.kind === 'richtext') {
        for (const attrs of imageAttrsOf(entry.planned.doc)) if (typeof attrs.id === 'string') ids.add(attrs.id);
      }
    }
    if (ids.size === 0) return new Map();
    const rows = (await query(FILE_UID).findMany({ where: { documentId: { $in: [...ids] } } })) as FileRow[];
    return new Map(rows.map((row) => [row.documentId, row]));
  };

  const resolveMedia = (entry: PlannedField, refs: AssetRef[], files: Map<string, FileRow>, problems: ErrorObject[]) => {
    const ids: number[] = [];
    for (const ref of refs) {
      const file = files.get(ref.id);
      if (!file) {
        problems.push(errorObject(422, `No asset ${echo(ref.id)} exists.`, { source: { pointer: ref.pointer }, reason: 'asset_not_found' }));
      } else if (!mimeAllowed(entry.field.allowedTypes, file.mime)) {
        problems.push(
          errorObject(422, `'${entry.field.key}' accepts ${entry.field.allowedTypes!.join(', ')}; this asset is ${file.mime}.`, {
            source: { pointer: ref.pointer },
            reason: 'asset_type_not_allowed',
          })
        );
      } else if (ids.includes(file.id)) {
        problems.push(errorObject(422, 'This asset is already listed above.', { source: { pointer: ref.pointer }, reason: 'asset_repeated' }));
      } else {
        ids.push(file.id);
      }
    }
    const many = entry.field.type === 'images' || entry.field.type === 'files';
    return many ? ids : (ids[0] ?? null);
  };

  /** An upload file as Strapi's blocks keep it inside an image block (what the admin stores). */
  const imageBlockFile = (file: FileRow): BlocksImageFile => ({
    id: file.id,
    documentId: file.documentId,
    name: file.name,
    alternativeText: file.alternativeText ?? null,
    caption: file.caption ?? null,
    width: file.width,
    height: file.height,
    formats: file.formats ?? null,
    hash: file.hash,
    ext: file.ext,
    mime: file.mime,
    size: file.size,
    url: file.url,
    previewUrl: file.previewUrl ?? null,
    provider: file.provider,
    provider_metadata: file.provider_metadata ?? null,
    createdAt: iso(file.createdAt),
    updatedAt: iso(file.updatedAt),
  });

  const resolveRichtext = (entry: PlannedField, doc: unknown, files: Map<string, FileRow>, problems: ErrorObject[]) => {
    if (doc === null) return null;
    const attrsToImage = (attrs: Record<string, unknown>): ImageLookup => {
      const file = typeof attrs.id === 'string' ? files.get(attrs.id) : undefined;
      if (!file) return { ok: false, message: 'An image names an existing asset by its id (attrs.id).' };
      if (!file.mime.startsWith('image/') || typeof file.width !== 'number' || typeof file.height !== 'number') {
        return { ok: false, message: `An image must be an image asset with a size; this asset is ${file.mime}.` };
      }
      return { ok: true, file: imageBlockFile(file) };
    };
    const result = docToBlocks(doc, { attrsToImage, pointer: entry.pointer });
    if (result.ok) return result.blocks;
    for (const issue of result.issues) {
      problems.push(errorObject(422, issue.message, { source: { pointer: issue.pointer }, reason: 'richtext_invalid' }));
    }
    return null;
  };

  /** The plan -> Strapi data, every reference resolved; 422 with every problem otherwise. */
  const dataOf = async (target: WriteTarget, plan: AttributePlan, rowId: number | null): Promise<Record<string, unknown>> => {
    const problems: ErrorObject[] = [];
    // One after the other: inside a transaction there is one connection.
    const relations = await resolveRelations(target, plan.fields, problems, rowId);
    const files = await loadFiles(plan.fields);
    const data: Record<string, unknown> = { ...relations };
    for (const entry of plan.fields) {
      switch (entry.planned.kind) {
        case 'value':
          data[entry.field.key] = entry.planned.value;
          break;
        case 'media':
          data[entry.field.key] = resolveMedia(entry, entry.planned.refs, files, problems);
          break;
        case 'richtext':
          data[entry.field.key] = resolveRichtext(entry, entry.planned.doc, files, problems);
          break;
        default:
      }
    }
    if (problems.length) throw unprocessable(problems);
    return data;
  };

  // -------------------------------------------------------------------------------------------------------
  // Slugs
  // -------------------------------------------------------------------------------------------------------

  /**
   * Which records a slug of this write must differ from: those of the locale and, for a website-scoped
   * resource, of the path's website only (contract section 1), so that no answer says anything about
   * another website's records.
   */
  const slugScope = (target: WriteTarget, exceptDocumentId: string | null): SlugScope => {
    const resource = target.projection.resource;
    return {
      locale: target.locale,
      exceptDocumentId,
      ...(resource.scopeAttribute && resource.website ? { website: { attribute: resource.scopeAttribute, id: resource.website.id } } : {}),
    };
  };

  /**
   * Sets `data[slug]`: generated when the write leaves it out (create) or sends null, refused with 409
   * when another record of the scope publishes the one sent. Under the content type's slug lock, which
   * the document service middleware takes too, so that two writers cannot both take one slug.
   */
  const applySlug = async (
    target: WriteTarget,
    data: Record<string, unknown>,
    current: { documentId: string; values: Record<string, unknown> } | null
  ) => {
    const resource = target.projection.resource;
    const attribute = resource.slugAttribute;
    if (!attribute) return;
    const sent = Object.prototype.hasOwnProperty.call(data, attribute);
    if (current && !sent) return;
    const slugs = getService('slugs');
    await slugs.lock(resource.uid);
    const scope = slugScope(target, current?.documentId ?? null);
    const slug = data[attribute];
    if (typeof slug === 'string' && slug !== '') {
      if (await slugs.taken(resource.uid, attribute, slug, scope)) {
        throw apiError(409, `Another ${resource.slug} record already uses the slug ${echo(slug)}.`, {
          source: { pointer: attributePointer(attribute) },
          reason: 'duplicate_slug',
        });
      }
      return;
    }
    const targetField = slugs.sourceFieldOf(resource.uid, attribute);
    const source = targetField ? (Object.prototype.hasOwnProperty.call(data, targetField) ? data[targetField] : current?.values[targetField]) : undefined;
    data[attribute] = await slugs.generate(resource.uid, attribute, source, scope);
  };

  // -------------------------------------------------------------------------------------------------------
  // Versions
  // -------------------------------------------------------------------------------------------------------

  /** The draft and published rows of a document in the write's locale. */
  const versionsOf = async (resource: Resource, documentId: string, locale: string | null, select: string[] = []) => {
    const where: Record<string, unknown> = { documentId };
    if (locale) where.locale = locale;
    const rows = (await query(resource.uid).findMany({ where, select: ['id', 'publishedAt', 'updatedAt', ...select] })) as VersionRow[];
    return { draft: rows.find((row) => row.publishedAt == null) ?? null, published: rows.find((row) => row.publishedAt != null) ?? null };
  };

  /**
   * An update publishes the draft; when an editor has saved changes to the draft that are not published
   * yet (the admin shows the record as "modified"), publishing would put them live and change fields the
   * request did not send. Refused instead: the editor publishes or discards them first.
   */
  const assertNoPendingChanges = (resource: Resource, versions: { draft: VersionRow | null; published: VersionRow | null }) => {
    const { draft, published } = versions;
    if (!resource.draftAndPublish || !draft || !published) return;
    if (millis(draft.updatedAt) > millis(published.updatedAt)) {
      throw apiError(409, 'This record has unpublished changes in the admin; they must be published or discarded before it can be written here.', {
        reason: 'unpublished_changes',
      });
    }
  };

  const localeParam = (target: WriteTarget) => (target.projection.resource.localized && target.locale ? { locale: target.locale } : {});

  return {
    /** A new record, published. Returns its documentId. */
    async create(target: WriteTarget, plan: AttributePlan): Promise<string> {
      if (plan.problems.length) throw unprocessable(plan.problems);
      const resource = target.projection.resource;
      const data = await dataOf(target, plan, null);
      await applySlug(target, data, null);
      // The website of the path, always: the scope is not a field, so no request can name another.
      if (resource.scopeAttribute && resource.website) data[resource.scopeAttribute] = resource.website.documentId;
      const created = await documents(resource.uid).create({ data, status: 'published', ...localeParam(target) });
      return created.documentId;
    },

    /** Only the fields sent; the record stays published. Nothing sent, nothing written. */
    async update(target: WriteTarget, documentId: string, plan: AttributePlan): Promise<void> {
      if (plan.problems.length) throw unprocessable(plan.problems);
      if (plan.fields.length === 0) return;
      const resource = target.projection.resource;
      const targetField = resource.slugAttribute ? getService('slugs').sourceFieldOf(resource.uid, resource.slugAttribute) : undefined;
      const versions = await versionsOf(resource, documentId, target.locale, targetField ? [targetField] : []);
      if (!versions.published) throw apiError(404, 'No record exists at this path.', { reason: 'record_not_found' });
      const data = await dataOf(target, plan, versions.published.id);
      await applySlug(target, data, { documentId, values: versions.draft ?? versions.published });
      // Only references were sent, each list as reads show it: nothing is written or published, not even a date.
      if (Object.keys(data).length === 0) return;
      assertNoPendingChanges(resource, versions);
      const updated = await documents(resource.uid).update({ documentId, data, status: 'published', ...localeParam(target) });
      if (!updated) throw apiError(404, 'No record exists at this path.', { reason: 'record_not_found' });
    },

    /** Removes the record in the write's locale (for resources that are not localized: the record). */
    async remove(target: WriteTarget, documentId: string): Promise<void> {
      await documents(target.projection.resource.uid).delete({ documentId, ...localeParam(target) });
    },

    /** Unpublishes the record: it keeps its draft for editors and disappears from reads. */
    async archive(target: WriteTarget, documentId: string): Promise<void> {
      await documents(target.projection.resource.uid).unpublish({ documentId, ...localeParam(target) });
    },
  };
};

