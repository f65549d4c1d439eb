/**
 * Where application records hold references, as paths through Strapi's tables (read once from the
 * schemas and Strapi's metadata): from a record's row of an application content type, through zero or
 * more component levels (a component field, a repeatable one, a dynamic zone, components inside
 * components: each level is the holder's `_cmps` join table, `entity_id` -> `cmp_id` of one component
 * type), to the row that holds
 *
 * - a relation field: its join table, leading to the rows of the target content type, or
 * - a media field: Strapi's `files_related_mph` rows, whose `related_type` is the holder's uid.
 *
 * referrers.ts turns each path into one `INSERT ... SELECT` of journal entries for the records that hold
 * a changed target; nothing here touches the database.
 */
import type { Core } from '@strapi/strapi';
import type { IndexDefinition } from '../../database/ensure-index';
import { readModelOf } from '../../read/model';
import { componentUidsOf, isMediaAttribute } from '../../fields/strapi-attributes';

/** One component level: the holder's `_cmps` table and the component type taken from it. */
export type ComponentHop = { table: string; ownerColumn: string; componentColumn: string; typeColumn: string; componentUid: string };

/** A record's rows (of `ownerUid`) and the component levels down to the row that holds the reference. */
export type HolderPath = {
  ownerUid: string;
  ownerTable: string;
  localized: boolean;
  draftAndPublish: boolean;
  hops: ComponentHop[];
  /** The uid of the holding row: the owner's, or the last component's. */
  holderUid: string;
};

export type RelationPath = HolderPath & {
  targetUid: string;
  join: { table: string; ownerColumn: string; targetColumn: string };
  /** The holder's relation field (the owner's own when the path has no component level). */
  field: string;
};

export type ReferencePaths = {
  /** Relation paths by the content type they lead to. */
  relations: Map<string, RelationPath[]>;
  /** Paths to every row that holds a media field. */
  media: HolderPath[];
};

type SchemaAttribute = { type: string; component?: string; components?: string[] };
type Schema = {
  attributes: Record<string, SchemaAttribute>;
  options?: { draftAndPublish?: boolean };
  pluginOptions?: { i18n?: { localized?: boolean } };
};
type JoinTable = {
  name: string;
  joinColumn: { name: string };
  inverseJoinColumn?: { name: string };
  morphColumn?: { idColumn: { name: string }; typeColumn: { name: string } };
};
type Meta = { tableName: string; attributes: Record<string, { joinTable?: JoinTable }> };

/** Strapi's name of the `_cmps` tables' column naming the holder's field a component row belongs to. */
export const COMPONENT_FIELD_COLUMN = 'field';
/** Strapi's name of the `_cmps` tables' component type column (when the metadata names no morph column). */
const TYPE_COLUMN = 'component_type';
/** Component nesting deeper than this is not followed (Strapi's admin allows far less). */
const MAX_DEPTH = 8;

export const referencePaths = (strapi: Core.Strapi): ReferencePaths => {
  const relations = new Map<string, RelationPath[]>();
  const media: HolderPath[] = [];
  const components = strapi.components as unknown as Record<string, Schema>;

  /** The `_cmps` hop of a component or dynamic zone attribute of `holderUid`, towards `componentUid`. */
  const hopOf = (holderUid: string, attribute: string, componentUid: string): ComponentHop | null => {
    const joinTable = (strapi.db.metadata.get(holderUid) as unknown as Meta).attributes[attribute]?.joinTable;
    if (!joinTable) return null;
    return {
      table: joinTable.name,
      ownerColumn: joinTable.joinColumn.name,
      componentColumn: joinTable.inverseJoinColumn?.name ?? joinTable.morphColumn!.idColumn.name,
      typeColumn: joinTable.morphColumn?.typeColumn.name ?? TYPE_COLUMN,
      componentUid,
    };
  };

  const visit = (base: Omit<HolderPath, 'hops' | 'holderUid'>, holderUid: string, schema: Schema, hops: ComponentHop[]) => {
    const path: HolderPath = { ...base, hops, holderUid };
    for (const [name, relation] of Object.entries(readModelOf(strapi, holderUid).relations)) {
      // Records only (Strapi's metadata also lists component and media links as relations).
      if (!relation.targetUid.startsWith('api::') || !relation.targetColumn) continue;
      const list = relations.get(relation.targetUid) ?? [];
      list.push({
        ...path,
        targetUid: relation.targetUid,
        join: { table: relation.table, ownerColumn: relation.ownerColumn, targetColumn: relation.targetColumn },
        field: name,
      });
      relations.set(relation.targetUid, list);
    }
    if (Object.values(schema.attributes).some((attribute) => isMediaAttribute(attribute))) media.push(path);
    if (hops.length >= MAX_DEPTH) return;
    // Each component type once per holder: two fields holding one type share the `_cmps` rows' type.
    const seen = new Set<string>();
    for (const [name, attribute] of Object.entries(schema.attributes)) {
      const uids = componentUidsOf(attribute);
      for (const componentUid of uids) {
        const component = components[componentUid];
        if (!component || seen.has(componentUid) || hops.some((hop) => hop.componentUid === componentUid)) continue;
        const hop = hopOf(holderUid, name, componentUid);
        if (!hop) continue;
        seen.add(componentUid);
        visit(base, componentUid, component, [...hops, hop]);
      }
    }
  };

  for (const [uid, schema] of Object.entries(strapi.contentTypes as unknown as Record<string, Schema>)) {
    if (!uid.startsWith('api::')) continue;
    const base = {
      ownerUid: uid,
      ownerTable: readModelOf(strapi, uid).table,
      localized: schema.pluginOptions?.i18n?.localized === true,
      draftAndPublish: schema.options?.draftAndPublish === true,
    };
    visit(base, uid, schema, []);
  }
  return { relations, media };
};

/**
 * Indexes the referrer statements walk by, created at start: `<_cmps table>_pda_cmp` on `(cmp_id,
 * component_type)` of every `_cmps` table a path crosses. The statements go from the target up to the
 * owner, so each level looks its component row up by `cmp_id`; Strapi's own indexes on these tables lead
 * with `entity_id` (and one with the field or the type alone), which would make each level read every
 * link of the component type.
 */
export const componentIndexes = (paths: ReferencePaths, quote: (identifier: string) => string): IndexDefinition[] => {
  const hops = new Map<string, ComponentHop>();
  for (const path of [...[...paths.relations.values()].flat(), ...paths.media]) for (const hop of path.hops) hops.set(hop.table, hop);
  return [...hops.values()].map((hop) => ({
    name: `${hop.table}_pda_cmp`,
    table: hop.table,
    columns: [quote(hop.componentColumn), quote(hop.typeColumn)],
  }));
};
