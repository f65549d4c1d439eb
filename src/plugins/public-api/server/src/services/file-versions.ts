/**
 * Content versions of upload files: an asset URL's token changes when its file is replaced (contract
 * section 11).
 *
 * Strapi's upload plugin keeps a replaced file's hash, extension and URL, so nothing in its row tells the
 * new bytes from the old. Whenever a file's content columns are written (the media library's "Replace",
 * or any update of its hash, URL, size, type, dimensions or formats), a version is recorded: the SHA-256
 * of the bytes now stored (local provider), or a random value when they cannot be read here. A file never
 * replaced has no version, and its token is what it always was. Tokens, ETags and variant keys all name
 * the content through `contentIdentity` (serialize/assets).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Core } from '@strapi/strapi';
import { getService } from '../utils/get-service';

export const FILE_VERSION_UID = 'plugin::public-api.file-version';
const FILE_UID = 'plugin::upload.file';

/** The file columns that change when the bytes do; metadata edits (name, alt text, folder) write none. */
const CONTENT_COLUMNS = ['hash', 'url', 'size', 'mime', 'ext', 'width', 'height', 'formats', 'provider'] as const;

type FileResult = { id?: unknown; url?: unknown; provider?: unknown };
type LifecycleEvent = { params?: { data?: Record<string, unknown>; where?: unknown }; result?: unknown };

/** Whether an update writes any of the content columns. */
export const changesContent = (data: Record<string, unknown> | undefined): boolean =>
  !!data && CONTENT_COLUMNS.some((column) => data[column] !== undefined);

const sha256Of = (file: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const versions = () => strapi.db.query(FILE_VERSION_UID);

  /** The version of the bytes a file row now points at. */
  const versionOf = async (file: FileResult): Promise<string> => {
    const filePath =
      typeof file.url === 'string' && typeof file.provider === 'string' ? getService('assets').pathOf({ url: file.url, provider: file.provider }) : null;
    if (filePath) {
      try {
        return await sha256Of(filePath);
      } catch {
        // Unreadable here (gone, permissions): any new value still changes the token.
      }
    }
    return randomBytes(16).toString('hex');
  };

  /** Records the content version of a file whose bytes were replaced. */
  const record = async (file: FileResult): Promise<void> => {
    const fileId = Number(file.id);
    if (!Number.isInteger(fileId)) return;
    const version = await versionOf(file);
    // Strapi's query engine joins the transaction of the write in progress, if any.
    const updated = await versions().updateMany({ where: { fileId }, data: { version } });
    if (Number((updated as { count?: number }).count ?? 0) > 0) return;
    try {
      await versions().create({ data: { fileId, version } });
    } catch (error) {
      // Another replace of the same file recorded its version first: this one is the newer write.
      const retried = await versions().updateMany({ where: { fileId }, data: { version } });
      if (Number((retried as { count?: number }).count ?? 0) === 0) throw error;
    }
  };

  return {
    record,

    /** Follows writes to upload files from now on (bootstrap). */
    watch(): void {
      strapi.db.lifecycles.subscribe({
        models: [FILE_UID],
        async afterUpdate(event: LifecycleEvent) {
          if (changesContent(event.params?.data)) await record((event.result ?? {}) as FileResult);
        },
        async afterDelete(event: LifecycleEvent) {
          const fileId = Number((event.result as FileResult | undefined)?.id);
          if (Number.isInteger(fileId)) await versions().deleteMany({ where: { fileId } });
        },
      } as never);
    },
  };
};
