/**
 * The shapes of record reads' statements (database/statements.ts): what a statement's SQL text depends on
 * besides its parameters, so that its SQL is built once per shape and runs as a prepared statement. A
 * shape holds every value that is not a parameter: resource and its website's id, shown columns, locale,
 * sort, filters with their values, limit, number of ids. Pure.
 */
import type { Projection } from '../grants/projection';
import type { Field, Resource } from '../registry/types';
import type { Scope } from './record-scope';

/** What a scope's locales put in a statement's shape: the fallback order is part of the SQL. */
export const localeShape = (scope: Scope): string => [scope.locale, ...(scope.fallback ?? [])].join('>');

/** What a resource's queries depend on besides its columns: its content type and its website. */
export const resourceShape = (resource: Resource) => `${resource.uid}@${resource.website?.id ?? ''}`;

/** What `selectColumns` and `applyVisibility` make of a projection. */
export const projectionShape = (projection: Projection, also: readonly Field[] = []) =>
  `${resourceShape(projection.resource)}[${projection.readable.map((field) => field.key).join(',')}|${also.map((field) => field.key).join(',')}]`;
