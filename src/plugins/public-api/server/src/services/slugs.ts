/**
 * Record slugs the plugin keeps: unique per website for website-scoped content types (contract section 1),
 * per content type for the others. Used by the API's writes (`services/writes/`) and by the document
 * service middleware (`slugs/middleware.ts`) that holds the rule for every other writer (the admin,
 * scripts, the seed).
 *
 * The rule is Strapi's own for a uid, scoped: no two documents have published versions with one slug in
 * one locale and website; drafts are free. Generated slugs avoid drafts as well, so that publishing a
 * draft never runs into a slug generated meanwhile.
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Knex } from 'knex';
import { databaseClient, lockUntilCommit } from '../database/connection';
import { candidatesOf, slugBase, type SlugifyOptions } from '../slugs/candidates';
import { slugTargetFieldOf } from '../registry/fields';
import type { StrapiAttribute } from '../registry/types';
import { slugDefinitionOf, type SlugDefinition, type SlugSchema } from '../slugs/definition';
import { clashingVersions, missingSlugs, SLUG_TAKEN_MESSAGES, type SlugHolder, type SlugVersion } from '../slugs/versions';

/** The name of a slug value's lock (database/connection.ts `lockUntilCommit`). */
export const slugLockName = (uid: string, slug: string): string => `public-api:slug:${uid}:${slug}`;

/** Which records a slug must differ from. */
export type SlugScope = {
  /** The locale, for localized content types; null for the others. */
  locale: string | null;
  /** The document being written, whose own versions never count. */
  exceptDocumentId: string | null;
  /** For website-scoped content types: the relation and the website (row id; null: records without one). */
  website?: { attribute: string; id: number | null };
};

type Model = {
  modelName: string;
  attributes: Record<string, StrapiAttribute & { options?: SlugifyOptions }>;
};

type Row = Record<string, unknown>;

const isWebsite = (id: number | null): id is number => id !== null;

/** The website row id of a populated to-one relation, or null when the record has none. */
const websiteIdOf = (value: unknown): number | null =>
  value && typeof value === 'object' && 'id' in value ? Number((value as { id: unknown }).id) : null;

/** Rows linked to one of these websites (null: to none). */
const websitesWhere = (attribute: string, websites: readonly (number | null)[]): Row => {
  const ids = [...new Set(websites.filter(isWebsite))];
  const linked = { [attribute]: { id: { $in: ids } } };
  return websites.includes(null) ? { $or: [linked, { [attribute]: { id: { $null: true } } }] } : linked;
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const query = (uid: string) => strapi.db.query(uid as Parameters<typeof strapi.db.query>[0]);
  let definitions: Map<string, SlugDefinition> | null = null;

  const definitionsByUid = (): Map<string, SlugDefinition> => {
    definitions ??= new Map(
      Object.values(strapi.contentTypes as unknown as Record<string, SlugSchema>)
        .map(slugDefinitionOf)
        .filter((definition): definition is SlugDefinition => definition !== null)
        .map((definition) => [definition.uid, definition]),
    );
    return definitions;
  };

  const scopeWhere = (scope: SlugScope): Row => {
    const where: Row = {};
    if (scope.locale) where.locale = scope.locale;
    if (scope.exceptDocumentId) where.documentId = { $ne: scope.exceptDocumentId };
    if (scope.website) where[scope.website.attribute] = { id: scope.website.id === null ? { $null: true } : scope.website.id };
    return where;
  };

  /** Which of `candidates` a version of another document within the scope holds (drafts too). */
  const takenOf = async (uid: string, attribute: string, candidates: readonly string[], scope: SlugScope): Promise<Set<unknown>> => {
    const rows = (await query(uid).findMany({
      where: { ...scopeWhere(scope), [attribute]: { $in: candidates } },
      select: [attribute],
    })) as Row[];
    return new Set(rows.map((row) => row[attribute]));
  };

  /**
   * Holds the locks of these slug values of the content type until the transaction ends (issue 34): two
   * writers of one slug take turns, writers of different slugs do not wait for each other. In a stable
   * order, so that two writers locking the same slugs cannot each hold one the other waits for.
   */
  const lockValues = async (uid: string, values: readonly string[], connection?: Knex): Promise<void> => {
    for (const value of [...new Set(values)].sort()) await lockUntilCommit(strapi, slugLockName(uid, value), connection);
  };

  /**
   * The first free candidate: twenty per indexed query, by exact value (no `LIKE 'x%'`, which is a scan).
   * Locked, then checked again: a writer that held its lock may have committed it meanwhile (PostgreSQL
   * reads what committed before each statement); then the next free one.
   */
  const firstFree = async (uid: string, attribute: string, base: string, scope: SlugScope, connection?: Knex): Promise<string> => {
    for (let batch = 0; ; batch += 1) {
      const candidates = candidatesOf(base, batch);
      const taken = await takenOf(uid, attribute, candidates, scope);
      for (const free of candidates.filter((candidate) => !taken.has(candidate))) {
        await lockValues(uid, [free], connection);
        if (databaseClient(strapi) !== 'postgres' || (await takenOf(uid, attribute, [free], scope)).size === 0) return free;
      }
    }
  };

  const modelOf = (uid: string) => strapi.contentTypes[uid as keyof typeof strapi.contentTypes] as unknown as Model;

  const service = {
    /** The attribute a slug attribute is made from (a uid's `targetField`, a plugin slug's), if any. */
    sourceFieldOf(uid: string, attribute: string): string | undefined {
      const definition = modelOf(uid)?.attributes[attribute];
      return definition ? slugTargetFieldOf(definition) : undefined;
    },

    /** The plugin slug of a content type, or null when it has none (Strapi keeps its uids itself). */
    definitionOf(uid: string): SlugDefinition | null {
      return definitionsByUid().get(uid) ?? null;
    },

    /**
     * Holds the lock of this slug value until the transaction ends, so that two writers cannot both find
     * it free and both take it (no index can enforce it: the website is in a link table). Per value, not
     * per content type (issue 34): writes of other slugs of the type go on meanwhile. `connection`: the
     * transaction, when it is Strapi's own rather than the plugin's.
     */
    lock(uid: string, slug: string, connection?: Knex): Promise<void> {
      return lockValues(uid, [slug], connection);
    },

    /**
     * MySQL and MariaDB only: holds the content type's slug lock until the transaction ends. InnoDB reads
     * (REPEATABLE READ) from a snapshot taken at the transaction's first read, so a check made again under a
     * slug value's lock would not see a writer that committed meanwhile (PostgreSQL reads what committed
     * before each statement). There every slug-writing transaction takes this lock before it reads, and the
     * per-value locks add nothing; MariaDB's content writes take turns anyway (the journal's order lock).
     * A no-op on SQLite and PostgreSQL. Covered by test/api/website-slugs.test.ts on MariaDB.
     */
    async lockTypeOnSnapshotDatabases(uid: string, connection?: Knex): Promise<void> {
      if (databaseClient(strapi) === 'mysql') await lockUntilCommit(strapi, `public-api:slug:${uid}`, connection);
    },

    /** Whether another document holds this slug in a published version within the scope; takes its lock first. */
    async taken(uid: string, attribute: string, slug: string, scope: SlugScope): Promise<boolean> {
      await lockValues(uid, [slug]);
      const where = { ...scopeWhere(scope), [attribute]: slug, publishedAt: { $notNull: true } };
      return (await query(uid).findOne({ where, select: ['id'] })) !== null;
    },

    /**
     * A slug made from `source` as the admin makes one (the source, else the field's default, else the
     * model's name, slugified with the field's options; then `-1`, `-2`...), free of every version of
     * other documents within the scope.
     */
    async generate(uid: string, attribute: string, source: unknown, scope: SlugScope, connection?: Knex): Promise<string> {
      const model = modelOf(uid);
      const { default: fallback, options } = model.attributes[attribute] ?? {};
      const base = slugBase(source, [typeof fallback === 'function' ? (fallback as () => unknown)() : fallback, model.modelName], options);
      return firstFree(uid, attribute, base, scope, connection);
    },

    /**
     * After a write of a document with a plugin slug: versions left without a slug get one, generated
     * within their website; a published version whose slug another document of its website publishes is
     * refused (Strapi's ValidationError, which the admin shows on the field). Returns the generated
     * slugs by row id. Call it inside the write's transaction (`connection`: Strapi's, when it is not the
     * plugin's); it takes the locks of the slugs it generates and of the published ones it checks.
     */
    async settle(definition: SlugDefinition, documentId: string, connection?: Knex): Promise<Map<number, string>> {
      const { uid, attribute, targetField, scopeAttribute } = definition;
      const select = ['id', 'locale', 'publishedAt', attribute, ...(targetField ? [targetField] : [])];
      const populate = scopeAttribute ? { [scopeAttribute]: { select: ['id'] } } : undefined;
      const versionOf = (row: Row): SlugVersion => ({
        id: Number(row.id),
        locale: definition.localized && typeof row.locale === 'string' ? row.locale : null,
        published: row.publishedAt !== null && row.publishedAt !== undefined,
        slug: typeof row[attribute] === 'string' ? (row[attribute] as string) : null,
        source: targetField ? row[targetField] : undefined,
        website: scopeAttribute ? websiteIdOf(row[scopeAttribute]) : null,
      });
      const versions = ((await query(uid).findMany({ where: { documentId }, select, populate })) as Row[]).map(versionOf);

      const generated = new Map<number, string>();
      for (const missing of missingSlugs(versions)) {
        const scope: SlugScope = {
          locale: missing.locale,
          exceptDocumentId: documentId,
          ...(scopeAttribute ? { website: { attribute: scopeAttribute, id: missing.website } } : {}),
        };
        const slug = await service.generate(uid, attribute, missing.source, scope, connection);
        await query(uid).updateMany({ where: { id: { $in: missing.rowIds } }, data: { [attribute]: slug } });
        for (const id of missing.rowIds) generated.set(id, slug);
      }
      const settled = versions.map((version) => (generated.has(version.id) ? { ...version, slug: generated.get(version.id)! } : version));

      const published = settled.filter((version) => version.published && version.slug !== null);
      if (published.length === 0) return generated;
      // Checked under the locks of these values: a writer publishing one of them now either committed
      // before (and is found below) or waits until this transaction ends (and finds this one).
      await lockValues(
        uid,
        published.map((version) => version.slug!),
        connection,
      );
      const holders = (await query(uid).findMany({
        where: {
          documentId: { $ne: documentId },
          publishedAt: { $notNull: true },
          [attribute]: { $in: [...new Set(published.map((version) => version.slug!))] },
          ...(scopeAttribute
            ? websitesWhere(
                scopeAttribute,
                published.map((version) => version.website),
              )
            : {}),
        },
        select: ['locale', attribute],
        populate,
      })) as Row[];
      const others: SlugHolder[] = holders.map((row) => ({
        slug: String(row[attribute]),
        locale: definition.localized && typeof row.locale === 'string' ? row.locale : null,
        website: scopeAttribute ? websiteIdOf(row[scopeAttribute]) : null,
      }));
      if (clashingVersions(settled, others).length > 0) {
        const message = scopeAttribute ? SLUG_TAKEN_MESSAGES.website : SLUG_TAKEN_MESSAGES.contentType;
        throw new errors.ValidationError(message, { errors: [{ path: [attribute], message, name: 'ValidationError' }] });
      }
      return generated;
    },
  };
  return service;
};
