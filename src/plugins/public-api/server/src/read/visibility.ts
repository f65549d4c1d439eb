/**
 * Which rows a record read sees, as SQL: published rows (or a draft read's drafts), the locale and the
 * first listed locale of a fallback list (contract section 15), the website; and the links of a relation
 * field that lead to such a target, which references, `include` and relation filters all read, so they
 * agree on which targets exist. Made per application over its read connection and read models.
 */
import type { Knex } from 'knex';
import type { ReadStatus } from '../query/types';
import type { Resource } from '../registry/types';
import type { ReadModel, RelationModel } from './model';
import { qualified } from './record-columns';
import type { Scope } from './record-scope';

export type Visibility = ReturnType<typeof createVisibility>;

export const createVisibility = (knex: () => Knex, models: (uid: string) => ReadModel) => {
  /**
   * The rows in the locales of a fallback list that are their document's first listed one: a row in the
   * i-th locale is taken when its document has no row (of the same status) in a locale listed before it.
   * One statement for the whole page: each NOT EXISTS is an indexed lookup on Strapi's (document_id,
   * locale, published_at) index, and filters, order and keyset then apply to the chosen rows' values.
   */
  const applyLocales = (builder: Knex.QueryBuilder, resource: Resource, model: ReadModel, scope: Scope & { locale: string }) => {
    const { locale, fallback = [] } = scope;
    const column = qualified(model, 'locale');
    if (fallback.length === 0) {
      builder.where(column, locale);
      return;
    }
    const listed = [locale, ...fallback];
    builder.where((inner) => {
      inner.where(column, locale);
      listed.forEach((code, index) => {
        if (index === 0) return;
        inner.orWhere((branch) =>
          branch.where(column, code).whereNotExists(earlierRows(resource, model, scope.status, listed.slice(0, index))),
        );
      });
    });
  };

  /** The rows (of the status read) of the current row's document in one of the `earlier` locales: one index search. */
  const earlierRows = (resource: Resource, model: ReadModel, status: ReadStatus | undefined, earlier: readonly string[]) => {
    const rows = knex()(`${model.table} as fb`)
      .select(knex().raw('1'))
      .where('fb.document_id', knex().ref(qualified(model, 'document_id')))
      .whereIn('fb.locale', [...earlier]);
    if (status === 'draft' && resource.draftAndPublish) rows.whereNull('fb.published_at');
    else rows.whereNotNull('fb.published_at');
    return rows;
  };

  /**
   * Restricts a query to what the resource shows: published rows (or, on a draft read, the draft rows of
   * a type with draft & publish; a type without it has only published rows), the locale, the website.
   */
  const applyVisibility = (builder: Knex.QueryBuilder, resource: Resource, model: ReadModel, scope: Scope) => {
    if (scope.status === 'draft' && resource.draftAndPublish) builder.whereNull(qualified(model, 'published_at'));
    else builder.whereNotNull(qualified(model, 'published_at'));
    if (resource.localized && scope.locale) applyLocales(builder, resource, model, { ...scope, locale: scope.locale });
    if (resource.scopeAttribute && resource.website) {
      const join = model.relations[resource.scopeAttribute]!;
      builder.whereIn(qualified(model, 'id'), knex()(join.table).select(join.ownerColumn).where(join.targetColumn, resource.website.id));
    }
  };

  /**
   * Whether the row's document has a published version in the row's locale (what `meta.status` of a
   * draft read says): one indexed lookup per row of the page, on Strapi's (document_id, locale,
   * published_at) index. Types without draft & publish have only published rows.
   */
  const hasPublishedVersion = (resource: Resource, model: ReadModel): Knex.Raw => {
    if (!resource.draftAndPublish) return knex().raw('1');
    const published = knex()(`${model.table} as pv`)
      .select(knex().raw('1'))
      .where('pv.document_id', knex().ref(qualified(model, 'document_id')))
      .whereNotNull('pv.published_at');
    if (resource.localized) published.where('pv.locale', knex().ref(qualified(model, 'locale')));
    return knex().raw('exists ?', [published]);
  };

  /**
   * The links of a relation field that lead to a record the key could see through this resource: the
   * target's published row, of its website when it is scoped, and in `language` when it is localized.
   * Strapi keeps a link per version (each locale, draft and published), so without the locale a
   * localized target would be reached once per language; with it, once. References, `include` and
   * relation filters all read links through here, so they agree on which targets exist.
   */
  const visibleLinks = (
    join: RelationModel,
    target: Resource,
    language: string | null,
    status?: ReadStatus,
    fallback: readonly string[] = [],
  ) => {
    const targetModel = models(join.targetUid);
    if (target.localized && !language) throw new Error(`Links to ${target.uid} need the language to read them in.`);
    const builder = knex()(`${join.table} as j`);
    joinTargets(builder, join, target, targetModel, fallback, status);
    // A draft links to its targets' drafts (Strapi links each version to the same version of the target).
    applyVisibility(builder, target, targetModel, {
      locale: target.localized ? language : null,
      fallback: target.localized ? fallback : [],
      status,
    });
    return { builder, targetModel };
  };

  /**
   * Joins the target rows the links of `j` reach. With a fallback list (contract section 15) a link names
   * a row in some locale (the one its owner row was written in), but the record shown is the target
   * document's row in the first listed locale it has: the linked row only names the document, and
   * `applyVisibility` then keeps that document's chosen row (one per document, so a link still gives one
   * row). The linked row must be of the same version (published, or the draft on a draft read).
   */
  const joinTargets = (
    builder: Knex.QueryBuilder,
    join: RelationModel,
    target: Resource,
    targetModel: ReadModel,
    fallback: readonly string[],
    status?: ReadStatus,
  ) => {
    if (!target.localized || fallback.length === 0) {
      builder.join(targetModel.table, qualified(targetModel, 'id'), `j.${join.targetColumn}`);
      return;
    }
    builder
      .join(`${targetModel.table} as ln`, 'ln.id', `j.${join.targetColumn}`)
      .join(targetModel.table, qualified(targetModel, 'document_id'), 'ln.document_id');
    if (status === 'draft' && target.draftAndPublish) builder.whereNull('ln.published_at');
    else builder.whereNotNull('ln.published_at');
  };

  /**
   * The ids of `resource` rows whose relation `field` points at visible targets with these ids or slugs.
   * With a fallback list (contract section 15) a target is matched as references show it: each owner row
   * (in its own chosen locale) reaches the target document, and the target's id or slug is compared on
   * that document's row in the first listed locale it has, not on its row in the first locale only. Still
   * one subquery for the whole page: a join on the document and a NOT EXISTS per later locale.
   */
  const relationOwners =
    (
      resource: Resource,
      model: ReadModel,
      targetOf: (field: string) => Resource | undefined,
      language: string | null,
      status?: ReadStatus,
      fallback: readonly string[] = [],
    ) =>
    (field: string, refs: string[] | null): Knex.QueryBuilder => {
      const join = model.relations[field];
      const target = targetOf(field);
      if (!join || !target) throw new Error(`No relation '${field}' on ${resource.uid}.`);
      const { builder, targetModel } = visibleLinks(join, target, language, status, target.localized ? fallback : []);
      builder.select(`j.${join.ownerColumn}`);
      if (refs) {
        const slugColumn = target.slugAttribute ? targetModel.columns[target.slugAttribute] : undefined;
        builder.where((inner) => {
          inner.whereIn(qualified(targetModel, 'document_id'), refs);
          if (slugColumn) inner.orWhereIn(qualified(targetModel, slugColumn), refs);
        });
      }
      return builder;
    };

  return { applyVisibility, earlierRows, hasPublishedVersion, visibleLinks, joinTargets, relationOwners };
};
