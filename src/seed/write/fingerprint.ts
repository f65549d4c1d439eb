/**
 * A fingerprint of the demo content as stored: for every row, the attributes the plan writes, with
 * relations by slug and media by file name, and whether the row is published. Components and dynamic
 * zone entries are taken the same way, attribute by attribute, without their row ids. What legitimately
 * differs between databases is left out (row ids, documentIds, timestamps), and so are attributes
 * the plan does not write, so a new attribute in a schema does not change it. Two runs on fresh
 * databases, SQLite or PostgreSQL, give the same value; benchmark events are not part of it.
 */
import { createHash } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { BENCH_SLUG_PREFIX } from '../bench/events';
import { buildDemoPlan, UID } from '../plan';
import { SEEDED_CONTENT_TYPES } from './census';

type Attribute = { type: string; target?: string; component?: string; components?: string[] };
type Attributes = Record<string, Attribute>;
type Row = Record<string, unknown>;

/** JSON with object keys sorted: PostgreSQL's jsonb does not keep key order. */
const stableJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Row)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
};

/** A relation target by slug, a file by name. */
const referenceOf = (target: unknown): unknown => {
  if (!target || typeof target !== 'object') return null;
  const row = target as Row;
  return row.slug ?? row.name ?? null;
};

/** The attributes the plan writes, per content type. */
const plannedAttributes = (): Map<string, Set<string>> => {
  const planned = new Map<string, Set<string>>();
  for (const document of buildDemoPlan().documents) {
    const names = planned.get(document.contentType) ?? new Set<string>();
    for (const version of [...document.versions, ...document.draftChanges]) Object.keys(version.data).forEach((name) => names.add(name));
    planned.set(document.contentType, names);
  }
  return planned;
};

/** How each attribute is loaded to be compared: media and relations to slugged targets as names, components whole. */
const populateFor = (strapi: Core.Strapi, attributes: Attributes): Record<string, unknown> => {
  const componentPopulate = (uid: string) => {
    const nested = populateFor(strapi, strapi.components[uid as keyof typeof strapi.components].attributes as Attributes);
    return Object.keys(nested).length > 0 ? { populate: nested } : true;
  };
  const populate: Record<string, unknown> = {};
  for (const [name, attribute] of Object.entries(attributes)) {
    if (attribute.type === 'media') populate[name] = { select: ['name'] };
    // Targets are named by slug, which (unlike their ids) is the same in every database.
    else if (attribute.type === 'relation' && attribute.target) {
      const target = strapi.contentType(attribute.target as Parameters<typeof strapi.contentType>[0]);
      if ('slug' in target.attributes) populate[name] = { select: ['slug'] };
    } else if (attribute.type === 'component') populate[name] = componentPopulate(attribute.component!);
    else if (attribute.type === 'dynamiczone')
      populate[name] = { on: Object.fromEntries(attribute.components!.map((uid) => [uid, componentPopulate(uid)])) };
  }
  return populate;
};

/** The comparable values of a row or component: the given attributes only, references by name. */
const valuesOf = (strapi: Core.Strapi, row: Row, attributes: Attributes, populate: Record<string, unknown>): Row => {
  const values: Row = {};
  const componentValues = (uid: string, value: unknown) => {
    const componentAttributes = strapi.components[uid as keyof typeof strapi.components].attributes as Attributes;
    return value ? valuesOf(strapi, value as Row, componentAttributes, populateFor(strapi, componentAttributes)) : null;
  };
  for (const [name, attribute] of Object.entries(attributes)) {
    if (!(name in row) || (attribute.type === 'relation' && !(name in populate))) continue;
    const value = row[name];
    if (attribute.type === 'media' || attribute.type === 'relation') {
      values[name] = Array.isArray(value) ? value.map(referenceOf) : referenceOf(value);
    } else if (attribute.type === 'component') {
      values[name] = Array.isArray(value)
        ? value.map((item) => componentValues(attribute.component!, item))
        : componentValues(attribute.component!, value);
    } else if (attribute.type === 'dynamiczone') {
      values[name] = ((value as Row[] | null) ?? []).map((entry) => ({
        __component: entry.__component,
        ...componentValues(String(entry.__component), entry),
      }));
    } else {
      values[name] = value;
    }
  }
  return values;
};

export const contentFingerprint = async (strapi: Core.Strapi): Promise<string> => {
  const hash = createHash('sha256');
  const planned = plannedAttributes();
  for (const contentType of SEEDED_CONTENT_TYPES) {
    const written = planned.get(contentType) ?? new Set<string>();
    const attributes = Object.fromEntries(
      Object.entries(strapi.contentType(contentType).attributes as Attributes).filter(([name]) => written.has(name)),
    );
    const populate = populateFor(strapi, attributes);
    const where = contentType === UID.event ? { $not: { slug: { $startsWith: BENCH_SLUG_PREFIX } } } : {};
    const rows = (await strapi.db.query(contentType).findMany({ where, populate })) as Row[];
    const lines = rows.map((row) =>
      stableJson({
        published: row.publishedAt !== null && row.publishedAt !== undefined,
        locale: row.locale ?? null,
        ...valuesOf(strapi, row, attributes, populate),
      }),
    );
    hash.update(contentType);
    for (const line of lines.sort()) hash.update(line);
  }
  return hash.digest('hex');
};
