/**
 * Upload files in the change journal: when an editor replaces the file behind a media field in the media
 * library (Strapi's upload plugin keeps the row, its id and its URL, and writes new bytes), or edits what a
 * record shows of it (name, alt text, caption), or deletes it, every published record whose media fields
 * hold it (directly or inside components) gets an `updated` entry (referrers.ts), so webhooks and the sync
 * feed send it again with the file as it is now.
 *
 * The upload plugin writes files with the query engine, not the document service, so the journal
 * middleware never sees them: database lifecycles of `plugin::upload.file` are followed instead, after
 * file-versions.ts's (subscribed first), so a delta or event rendered after the entry shows the new content
 * version. An update is journalled once the row is written (`afterUpdate`), a delete while its links still
 * exist (`beforeDelete`); the entries join the write's transaction when it has one. Strapi's upload plugin
 * writes a file row outside any transaction, so a crash in the moment between its update and the entries
 * would lose them (the window is one statement; docs/architecture.md).
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { createReferrers } from './referrers';

const FILE_UID = 'plugin::upload.file';

/** The file columns a record's asset object shows (serialize/assets.ts), or that change with its bytes. */
const SHOWN_COLUMNS = [
  'hash',
  'url',
  'size',
  'mime',
  'ext',
  'width',
  'height',
  'formats',
  'provider',
  'name',
  'alternativeText',
  'caption',
];

type LifecycleEvent = { params?: { data?: Record<string, unknown>; where?: unknown }; result?: unknown };

/** Whether an update writes anything a record shows of the file. */
export const changesShownFile = (data: Record<string, unknown> | undefined): boolean =>
  !!data && SHOWN_COLUMNS.some((column) => data[column] !== undefined);

const idOf = (value: unknown): number | null => {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : null;
  return typeof id === 'number' && Number.isInteger(id) ? id : typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : null;
};

export const watchFileChanges = (strapi: Core.Strapi, wake: () => void): void => {
  const referrers = createReferrers(strapi);
  const journal = async (fileId: number | null) => {
    if (fileId === null) return;
    await strapi.db.transaction(({ trx }) => referrers.journalFile(trx as unknown as Knex, fileId));
    wake();
  };
  strapi.db.lifecycles.subscribe({
    models: [FILE_UID],
    async afterUpdate(event: LifecycleEvent) {
      if (changesShownFile(event.params?.data)) await journal(idOf(event.result));
    },
    async beforeDelete(event: LifecycleEvent) {
      await journal(idOf(event.params?.where));
    },
  } as never);
};
