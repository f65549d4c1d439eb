/**
 * The enabled webhook endpoints indexed by what they subscribe to (webhooks/subscriptions.ts), for the
 * fan-out: kept per instance, and read again only when an endpoint changed somewhere.
 *
 * Invalidation across instances: every change to an endpoint's subscription (create, change, turn on
 * or off, delete, disable by the dispatcher) bumps one counter, `public_api_webhook_revision`, on the
 * connection of the change (so inside its transaction when there is one: the bump commits with the
 * change, and a rollback takes both). Each fan-out turn of every instance reads that one row; when it
 * differs from the revision the index was built at, the endpoints are read again. The revision is read
 * before the endpoints, so an index is never older than the revision it is kept under. An endpoint
 * deleted or turned off behind the index's back (SQL by hand) is only ever a candidate too many: the
 * fan-out reads each candidate's row before it works on it.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { connectionOf, databaseClient } from '../../database/connection';
import { rawRows } from '../../database/raw-result';
import type { Resource } from '../../registry/types';
import { getService } from '../../utils/get-service';
import { changedSince, indexSubscriptions, type Subscription, type SubscriptionIndex } from '../../webhooks/subscriptions';
import { WEBHOOK_ENDPOINT_UID, type EndpointRow } from './endpoints';

export const WEBHOOK_REVISION_TABLE = 'public_api_webhook_revision';

const CMS_PREFIX = 'cms:';

const strings = (value: unknown): string[] => {
  const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
};

/** What the fan-out gets each turn. */
export type Subscriptions = {
  index: SubscriptionIndex;
  /** Endpoints new or changed since the previous reading (every endpoint on the first). */
  changed: number[];
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = () => strapi.db.connection as unknown as Knex;
  let kept: { revision: number; list: Subscription[] } | null = null;
  let built: { list: Subscription[]; resources: readonly Resource[]; index: SubscriptionIndex } | null = null;

  const readRevision = async (): Promise<number> => {
    const [row] = rawRows<{ revision: number | string }>(
      await connectionOf(strapi).raw(`SELECT revision FROM ${WEBHOOK_REVISION_TABLE} WHERE id = 1`),
    );
    return Number(row?.revision ?? 0);
  };

  const load = async (): Promise<Subscription[]> => {
    const rows = (await strapi.db.query(WEBHOOK_ENDPOINT_UID).findMany({
      where: { enabled: true },
      select: ['id', 'resources'],
      orderBy: [{ id: 'asc' }],
    })) as Pick<EndpointRow, 'id' | 'resources'>[];
    return rows.map((row) => ({ id: Number(row.id), resources: strings(row.resources) }));
  };

  /** The resources the index resolves ids with: websites' only when an endpoint names one. */
  const resourcesFor = async (list: readonly Subscription[]): Promise<readonly Resource[]> => {
    const registry = getService('resources');
    return list.some((subscription) => subscription.resources.some((id) => id.startsWith(CMS_PREFIX))) ? registry.all() : registry.native();
  };

  const sameResources = (a: readonly Resource[], b: readonly Resource[]) =>
    a.length === b.length && a.every((resource, i) => resource === b[i]);

  return {
    /** Creates the revision's table and row when missing (every start; idempotent). */
    async ensure(): Promise<void> {
      await knex().raw(`CREATE TABLE IF NOT EXISTS ${WEBHOOK_REVISION_TABLE} (id integer PRIMARY KEY, revision bigint NOT NULL)`);
      // MySQL and MariaDB spell ON CONFLICT DO NOTHING as INSERT IGNORE.
      const ignore = databaseClient(strapi) === 'mysql';
      await knex().raw(
        `INSERT ${ignore ? 'IGNORE ' : ''}INTO ${WEBHOOK_REVISION_TABLE} (id, revision) VALUES (1, 0)${ignore ? '' : ' ON CONFLICT (id) DO NOTHING'}`,
      );
    },

    /** Says that an endpoint's subscription changed: every instance reads them again at its next turn. */
    async changed(connection: Knex = connectionOf(strapi)): Promise<void> {
      await connection.raw(`UPDATE ${WEBHOOK_REVISION_TABLE} SET revision = revision + 1 WHERE id = 1`);
    },

    /** The index now: one small read when nothing changed, the enabled endpoints read again when something did. */
    async current(): Promise<Subscriptions> {
      const revision = await readRevision();
      let changed: number[] = [];
      if (!kept || kept.revision !== revision) {
        const list = await load();
        changed = changedSince(kept?.list ?? [], list);
        kept = { revision, list };
      }
      const resources = await resourcesFor(kept.list);
      if (!built || built.list !== kept.list || !sameResources(built.resources, resources)) {
        const uids = new Map(resources.map((resource) => [resource.id, resource.uid]));
        built = { list: kept.list, resources, index: indexSubscriptions(kept.list, (id) => uids.get(id)) };
      }
      return { index: built.index, changed };
    },

    /** Forgets the index (tests; the next turn reads every endpoint again and looks at each once). */
    forget(): void {
      kept = null;
      built = null;
    },
  };
};
