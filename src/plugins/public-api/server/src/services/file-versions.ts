/**
 * What the plugin records of upload files (contract sections 2 and 11): the exact size in bytes, and the
 * content version of a replaced file.
 *
 * - Size: Strapi keeps `size` in kilobytes rounded to two decimals (5.28 for 5,283 bytes); the API speaks
 *   bytes. Strapi's upload service passes the exact `sizeInBytes` with every file row it writes, but does not
 *   store it: it is recorded here when the row is written, or measured on disk (local provider). Files
 *   written before this was recorded are measured once at start (`backfillSizes`).
 * - Version: Strapi's upload plugin keeps a replaced file's hash, extension and URL, so nothing in its row
 *   tells the new bytes from the old. Whenever a file's content columns are written (the media library's
 *   "Replace", or any update of its hash, URL, size, type, dimensions or formats), a version is recorded:
 *   the SHA-256 of the bytes now stored (local provider), or a random value when they cannot be read here.
 *   A file never replaced has no version, and its token is what it always was. Tokens, ETags and variant
 *   keys all name the content through `contentIdentity` (assets/token.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Core } from '@strapi/strapi';
import { FILE_VERSIONS_TABLE } from '../content-types/file-version';
import { getService } from '../utils/get-service';

export const FILE_VERSION_UID = 'plugin::public-api.file-version';
const FILE_UID = 'plugin::upload.file';

/** The file columns that change when the bytes do; metadata edits (name, alt text, folder) write none. */
const CONTENT_COLUMNS = ['hash', 'url', 'size', 'mime', 'ext', 'width', 'height', 'formats', 'provider'] as const;

/** Files measured per round of the start-up backfill. */
const BACKFILL_BATCH = 200;

type FileResult = { id?: unknown; url?: unknown; provider?: unknown };
type LifecycleEvent = { params?: { data?: Record<string, unknown>; where?: unknown }; result?: unknown };
type Facts = { version?: string; bytes?: number | null };

/** Whether an update writes any of the content columns. */
export const changesContent = (data: Record<string, unknown> | undefined): boolean =>
  !!data && CONTENT_COLUMNS.some((column) => data[column] !== undefined);

/** The exact size a write of Strapi's upload service states alongside the row (`sizeInBytes`), if any. */
export const statedBytes = (data: Record<string, unknown> | undefined): number | null => {
  const value = data?.sizeInBytes;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
};

const digestOf = (file: string): Promise<{ sha256: string; bytes: number }> =>
  new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    let bytes = 0;
    createReadStream(file)
      .on('data', (chunk) => {
        hash.update(chunk);
        bytes += chunk.length;
      })
      .on('error', reject)
      .on('end', () => resolve({ sha256: hash.digest('hex'), bytes }));
  });

const bytesOnDisk = async (file: string | null): Promise<number | null> => {
  if (!file) return null;
  try {
    return (await stat(file)).size;
  } catch {
    return null;
  }
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const facts = () => strapi.db.query(FILE_VERSION_UID);
  const knex = () => strapi.db.connection;
  let backfill: { state: { stopped: boolean }; done: Promise<void> } | null = null;

  const diskPathOf = (file: FileResult): string | null =>
    typeof file.url === 'string' && typeof file.provider === 'string'
      ? getService('assets').pathOf({ url: file.url, provider: file.provider })
      : null;

  /** Writes a file's facts: one row per file, created on first use. */
  const save = async (fileId: number, values: Facts): Promise<void> => {
    // Strapi's query engine joins the transaction of the write in progress, if any.
    const updated = await facts().updateMany({ where: { fileId }, data: values });
    if (Number((updated as { count?: number }).count ?? 0) > 0) return;
    try {
      await facts().create({ data: { fileId, ...values } });
    } catch (error) {
      // Another write of the same file created the row first: this one is the newer write.
      const retried = await facts().updateMany({ where: { fileId }, data: values });
      if (Number((retried as { count?: number }).count ?? 0) === 0) throw error;
    }
  };

  const idOf = (file: FileResult): number | null => {
    const fileId = Number(file.id);
    return Number.isInteger(fileId) ? fileId : null;
  };

  /** A new file: its exact size. */
  const recordCreated = async (file: FileResult, data: Record<string, unknown> | undefined): Promise<void> => {
    const fileId = idOf(file);
    if (fileId === null) return;
    const bytes = statedBytes(data) ?? (await bytesOnDisk(diskPathOf(file)));
    if (bytes !== null) await save(fileId, { bytes });
  };

  /** A file whose bytes were replaced: the version and size of the bytes its row now points at. */
  const record = async (file: FileResult, data?: Record<string, unknown>): Promise<void> => {
    const fileId = idOf(file);
    if (fileId === null) return;
    const filePath = diskPathOf(file);
    let measured: { sha256: string; bytes: number } | null = null;
    if (filePath) {
      try {
        measured = await digestOf(filePath);
      } catch {
        // Unreadable here (gone, permissions): any new value still changes the token.
      }
    }
    await save(fileId, {
      version: measured?.sha256 ?? randomBytes(16).toString('hex'),
      bytes: statedBytes(data) ?? measured?.bytes ?? null,
    });
  };

  /** Measures, in rounds, the local files whose size was never recorded (written before it was). */
  const backfillSizes = async (state: { stopped: boolean } = { stopped: false }): Promise<number> => {
    let after = 0;
    let measured = 0;
    while (!state.stopped) {
      const rows = (await knex()('files as f')
        .leftJoin(`${FILE_VERSIONS_TABLE} as v`, 'v.file_id', 'f.id')
        .select({ id: 'f.id', url: 'f.url', provider: 'f.provider' })
        .whereNull('v.bytes')
        .where('f.provider', 'local')
        .where('f.id', '>', after)
        .orderBy('f.id')
        .limit(BACKFILL_BATCH)) as { id: number | string; url: string; provider: string }[];
      if (rows.length === 0) break;
      for (const row of rows) {
        if (state.stopped) break;
        const bytes = await bytesOnDisk(diskPathOf(row));
        if (bytes !== null) {
          await save(Number(row.id), { bytes });
          measured += 1;
        }
      }
      after = Number(rows[rows.length - 1]!.id);
    }
    return measured;
  };

  return {
    record,
    recordCreated,
    backfillSizes,

    /** Follows writes to upload files from now on, and measures older files in the background (bootstrap). */
    watch(): void {
      strapi.db.lifecycles.subscribe({
        models: [FILE_UID],
        async afterCreate(event: LifecycleEvent) {
          await recordCreated((event.result ?? {}) as FileResult, event.params?.data);
        },
        async afterUpdate(event: LifecycleEvent) {
          if (changesContent(event.params?.data)) await record((event.result ?? {}) as FileResult, event.params?.data);
        },
        async afterDelete(event: LifecycleEvent) {
          const fileId = Number((event.result as FileResult | undefined)?.id);
          if (Number.isInteger(fileId)) await facts().deleteMany({ where: { fileId } });
        },
      } as never);
      const state = { stopped: false };
      backfill = {
        state,
        done: backfillSizes(state).then(
          (count) => {
            if (count > 0) strapi.log.info(`[public-api] measured the exact size of ${count} upload files`);
          },
          (error: unknown) => {
            strapi.log.warn(`[public-api] measuring upload file sizes stopped: ${(error as Error)?.message ?? String(error)}`);
          },
        ),
      };
    },

    /** Stops the start-up measuring and waits for it (shutdown). */
    async stop(): Promise<void> {
      if (!backfill) return;
      backfill.state.stopped = true;
      await backfill.done;
    },
  };
};
