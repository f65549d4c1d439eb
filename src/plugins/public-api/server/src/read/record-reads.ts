/**
 * What every record read of an application is made with: its read models, the connection reads run on
 * (the write in progress, when there is one: a write reads its own record back inside its transaction),
 * the statement runner its prepared shapes go through, and the visibility of rows and links. Made once
 * by the records service (services/records.ts), so it lives and dies with the Strapi instance.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { databaseClient } from '../database/connection';
import { readConnectionOf } from '../database/sqlite-reader';
import { statementRunner } from '../database/runner';
import type { Projection } from '../grants/projection';
import type { ReadStatus } from '../query/types';
import type { Field } from '../registry/types';
import { createReadModels, type ReadModel } from './model';
import { selectColumns, type RawRow } from './record-columns';
import type { Scope } from './record-scope';
import { createVisibility } from './visibility';

export type RecordReads = ReturnType<typeof createRecordReads>;

export const createRecordReads = (strapi: Core.Strapi) => {
  const models = createReadModels(strapi);
  const knex = (): Knex => readConnectionOf(strapi);
  const statements = statementRunner(strapi);
  const run = (shape: string | null, values: readonly unknown[], build: Parameters<typeof statements.rows>[2]) =>
    statements.rows<RawRow>(shape, values, build);
  const visibility = createVisibility(knex, models);

  /** `selectColumns` with this application's SQL for a draft read's published versions. */
  const columns = (
    projection: Projection,
    model: ReadModel,
    also: readonly Field[] = [],
    status: ReadStatus = 'published',
    fallback: readonly string[] = [],
  ) => selectColumns(projection, model, also, status, fallback, () => visibility.hasPublishedVersion(projection.resource, model));

  /** The shown columns of the rows `scope` sees. */
  const baseQuery = (projection: Projection, scope: Scope, also: readonly Field[] = []) => {
    const model = models(projection.resource.uid);
    const builder = knex()(model.table).select(columns(projection, model, also, scope.status, scope.fallback));
    visibility.applyVisibility(builder, projection.resource, model, scope);
    return { model, builder };
  };

  return { models, knex, run, client: () => databaseClient(strapi), visibility, columns, baseQuery };
};
