/**
 * Where a resource's data lives: tables, columns and join tables, read once per content type from
 * Strapi's database metadata.
 */
import type { Core } from '@strapi/strapi';
import { systemKeyOf } from '../fields/system-keys';
import type { Resource } from '../registry/types';
import { isRelationAttribute } from '../fields/strapi-attributes';

export type JoinModel = {
  table: string;
  /** Column holding the owner row's id. */
  ownerColumn: string;
  /** Column holding the target row's id. */
  targetColumn: string;
  /** Column ordering the targets of one owner, when the relation keeps an order. */
  orderColumn?: string;
};

export type RelationModel = JoinModel & {
  targetUid: string;
  targetTable: string;
  /** One target per owner (oneToOne, manyToOne): Strapi keeps at most one link per owner row. */
  toOne: boolean;
};

export type ReadModel = {
  uid: string;
  table: string;
  /** Attribute name -> column name, for every column attribute (system ones included). */
  columns: Record<string, string>;
  relations: Record<string, RelationModel>;
  /** The morph table that links files to records. */
  media: { table: string; fileColumn: string; ownerColumn: string; typeColumn: string; fieldColumn: string; orderColumn: string };
};

type MetaAttribute = {
  type: string;
  columnName?: string;
  relation?: string;
  target?: string;
  joinTable?: {
    name: string;
    joinColumn: { name: string };
    inverseJoinColumn: { name: string };
    orderColumnName?: string;
  };
};

type Meta = { tableName: string; attributes: Record<string, MetaAttribute> };

const MEDIA_TABLE = {
  table: 'files_related_mph',
  fileColumn: 'file_id',
  ownerColumn: 'related_id',
  typeColumn: 'related_type',
  fieldColumn: 'field',
  orderColumn: 'order',
};

export const readModelOf = (strapi: Core.Strapi, uid: string): ReadModel => {
  const meta = strapi.db.metadata.get(uid) as unknown as Meta;
  const columns: Record<string, string> = {};
  const relations: Record<string, RelationModel> = {};
  for (const [name, attribute] of Object.entries(meta.attributes)) {
    if (attribute.columnName) columns[name] = attribute.columnName;
    if (isRelationAttribute(attribute) && attribute.joinTable && attribute.target) {
      const targetMeta = strapi.db.metadata.get(attribute.target) as unknown as Meta;
      relations[name] = {
        table: attribute.joinTable.name,
        ownerColumn: attribute.joinTable.joinColumn.name,
        targetColumn: attribute.joinTable.inverseJoinColumn.name,
        orderColumn: attribute.joinTable.orderColumnName,
        targetUid: attribute.target,
        targetTable: targetMeta.tableName,
        toOne: attribute.relation === 'oneToOne' || attribute.relation === 'manyToOne',
      };
    }
  }
  return { uid, table: meta.tableName, columns, relations, media: MEDIA_TABLE };
};

/** Read models per content type uid; schemas only change with a restart. */
export const createReadModels = (strapi: Core.Strapi) => {
  const cache = new Map<string, ReadModel>();
  return (uid: string): ReadModel => {
    let model = cache.get(uid);
    if (!model) {
      model = readModelOf(strapi, uid);
      cache.set(uid, model);
    }
    return model;
  };
};

/** API key (field or system value) -> column of the resource's table. */
export const columnOf = (resource: Resource, model: ReadModel, key: string): string => {
  const attribute = systemKeyOf(key)?.attribute(resource) ?? key;
  const column = model.columns[attribute];
  if (!column) throw new Error(`No column for '${key}' of ${resource.uid}.`);
  return column;
};
