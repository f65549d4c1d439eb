/**
 * Database reads of component values (contract section 15): Strapi keeps each component value as a row
 * of its component's table, linked to its owner row (a record's, or a component's for nested ones)
 * through the owner table's `<collection>_cmps` join table (entity_id, cmp_id, component_type, field,
 * order). Components follow their owner row: each version (draft, published) and locale of a record has
 * its own component rows, so reading by owner row ids reads the very version and locale of the record.
 *
 * Reads go level by level: one query per owner table for the links of every owner of the level, then
 * one per component table for the rows, whatever the number of records; never one per record.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { readConnectionOf } from '../database/sqlite-reader';
import { statementRunner } from '../database/runner';
import { COMPONENT_FIELD_TYPES, MEDIA_FIELD_TYPES, RELATION_FIELD_TYPES } from '../fields/table';
import type { Projection } from '../grants/projection';
import type { Field } from '../registry/types';
import type { ComponentLink, RecordRow, Related } from '../serialize/rows';
import { itemComponentOf } from '../fields/items';

type MetaAttribute = {
  type: string;
  columnName?: string;
  joinTable?: {
    name: string;
    joinColumn: { name: string };
    inverseJoinColumn?: { name: string };
    morphColumn?: { idColumn: { name: string }; typeColumn: { name: string } };
    orderColumnName?: string;
  };
};

type Meta = { tableName: string; attributes: Record<string, MetaAttribute> };

/** Where an owner's component links are: its `_cmps` table and the columns Strapi names there. */
type ComponentJoin = { table: string; owner: string; component: string; type: string; order: string; field: string };

/** Strapi's own names for the columns it adds to every `_cmps` table (`identifiers.FIELD_COLUMN`, `ORDER_COLUMN`). */
const FIELD_COLUMN = 'field';
const ORDER_COLUMN = 'order';
const TYPE_COLUMN = 'component_type';

const ROW_ID = '__row_id';

type RawRow = Record<string, unknown>;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = (): Knex => readConnectionOf(strapi);
  const statements = statementRunner(strapi);
  const run = (shape: string, values: readonly unknown[], build: Parameters<typeof statements.rows>[2]) =>
    statements.rows<RawRow>(shape, values, build);

  const metaOf = (uid: string) => strapi.db.metadata.get(uid) as unknown as Meta;

  /** The `_cmps` join table of an owner's component fields (one table for all of them), from Strapi's metadata. */
  const joins = new Map<string, ComponentJoin | null>();
  const joinOf = (ownerUid: string, fields: readonly Field[]): ComponentJoin | null => {
    if (joins.has(ownerUid)) return joins.get(ownerUid)!;
    const meta = metaOf(ownerUid);
    const joinTable = fields.map((field) => meta.attributes[field.key]?.joinTable).find((candidate) => candidate !== undefined);
    const join: ComponentJoin | null = joinTable
      ? {
          table: joinTable.name,
          owner: joinTable.joinColumn.name,
          component: joinTable.inverseJoinColumn?.name ?? joinTable.morphColumn!.idColumn.name,
          type: joinTable.morphColumn?.typeColumn.name ?? TYPE_COLUMN,
          order: joinTable.orderColumnName ?? ORDER_COLUMN,
          field: FIELD_COLUMN,
        }
      : null;
    joins.set(ownerUid, join);
    return join;
  };

  /** Attribute name -> column, for a component's column attributes. */
  const columnsOf = (uid: string): Record<string, string> => {
    const columns: Record<string, string> = {};
    for (const [name, attribute] of Object.entries(metaOf(uid).attributes)) if (attribute.columnName) columns[name] = attribute.columnName;
    return columns;
  };

  return {
    /**
     * The component values `fields` of the owners hold, as links (component uid and row id) by field and
     * owner, in order: one query on the owner table's `_cmps` table. A single component's type is its
     * field's one component; a dynamic zone's is the link's `component_type`, kept only when the zone
     * (still) allows it.
     */
    async links(ownerUid: string, ownerRowIds: readonly number[], fields: readonly Field[]): Promise<Related<ComponentLink>> {
      const result: Related<ComponentLink> = new Map(fields.map((field) => [field.key, new Map()]));
      const join = joinOf(ownerUid, fields);
      if (!join || ownerRowIds.length === 0 || fields.length === 0) return result;
      const keys = fields.map((field) => field.key);
      const raws = await run(`cmps|${ownerUid}|${keys.join(',')}|${ownerRowIds.length}`, ownerRowIds, (param) =>
        knex()(`${join.table} as c`)
          .select({ owner: `c.${join.owner}`, rowId: `c.${join.component}`, type: `c.${join.type}`, field: `c.${join.field}` })
          .whereIn(
            `c.${join.owner}`,
            ownerRowIds.map((_, index) => param(index) as number),
          )
          .whereIn(`c.${join.field}`, keys)
          .orderBy([`c.${join.owner}`, `c.${join.field}`, `c.${join.order}`, 'c.id']),
      );
      const byKey = new Map(fields.map((field) => [field.key, field]));
      for (const raw of raws) {
        const field = byKey.get(String(raw.field))!;
        const allowed = field.components ?? [];
        const component = itemComponentOf(field, String(raw.type));
        if (!component || !allowed.some((candidate) => candidate.uid === component)) continue;
        const byOwner = result.get(field.key)!;
        const owner = Number(raw.owner);
        const list = byOwner.get(owner) ?? [];
        list.push({ rowId: Number(raw.rowId), component });
        byOwner.set(owner, list);
      }
      return result;
    },

    /**
     * Rows of one component's table by row id, with the columns of the fields its projection shows (its
     * links, files and nested components are read by the owner's loader): one query.
     */
    async rows(projection: Projection, rowIds: readonly number[]): Promise<RecordRow[]> {
      if (rowIds.length === 0) return [];
      const { uid } = projection.resource;
      const table = metaOf(uid).tableName;
      const columns = columnsOf(uid);
      const selected: Record<string, string> = { [ROW_ID]: `${table}.id` };
      for (const field of projection.readable) {
        if (RELATION_FIELD_TYPES.has(field.type) || MEDIA_FIELD_TYPES.has(field.type) || COMPONENT_FIELD_TYPES.has(field.type)) continue;
        const column = columns[field.key];
        if (column) selected[field.key] = `${table}.${column}`;
      }
      const shape = `component|${uid}|${Object.keys(selected).join(',')}|${rowIds.length}`;
      const raws = await run(shape, rowIds, (param) =>
        knex()(table)
          .select(selected)
          .whereIn(
            `${table}.id`,
            rowIds.map((_, index) => param(index) as number),
          ),
      );
      // A component row has no document, version or dates of its own: it is read out as its owner's part.
      return raws.map((raw) => ({
        rowId: Number(raw[ROW_ID]),
        documentId: '',
        slug: null,
        sort: null,
        createdAt: null,
        updatedAt: undefined,
        publishedAt: null,
        values: raw,
      }));
    },
  };
};
