/**
 * The top-level documents of reads (specification: "Response document shape"). Pure.
 */
import type { FieldMeta } from '../grants/projection';
import { JSONAPI } from '../http/jsonapi';
import type { Resource } from '../registry/types';
import type { RecordObject } from './record';

export const resourceMeta = (resource: Resource) => ({ name: resource.name, slug: resource.slug, mode: resource.mode });

export const collectionDocument = (input: {
  selfUrl: string;
  nextUrl: string | null;
  nextCursor: string | null;
  resource: Resource;
  fields: FieldMeta[];
  data: RecordObject[];
}) => ({
  jsonapi: JSONAPI,
  links: input.nextUrl ? { self: input.selfUrl, next: input.nextUrl } : { self: input.selfUrl },
  meta: {
    resource: resourceMeta(input.resource),
    fields: input.fields,
    page: { nextCursor: input.nextCursor },
  },
  data: input.data,
});

export const recordDocument = (input: { selfUrl: string; resource: Resource; fields: FieldMeta[]; data: RecordObject }) => ({
  jsonapi: JSONAPI,
  links: { self: input.selfUrl },
  meta: { resource: resourceMeta(input.resource), fields: input.fields },
  data: input.data,
});
