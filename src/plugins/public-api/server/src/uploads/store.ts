/**
 * A received, sniffed file -> an upload file row, inside the request's transaction, so that its bytes
 * outlive the request exactly when its row commits:
 *
 *   note (in the request's private workspace) -> bytes through the upload provider -> row
 *
 * A rollback deletes the bytes at once; a crash leaves the note, and the sweep at the next start deletes
 * the bytes whose row is missing (services/uploads.ts). This is the non-image path of Strapi's upload
 * service (`uploadFileAndPersist`), which offers no way to learn a file's name before it writes the bytes.
 */
import fs from 'node:fs';
import type { Core } from '@strapi/strapi';
import { sanitize } from '@strapi/utils';
import { onRollback } from '../database/connection';
import { FILE_KINDS } from './file-kind';
import type { ReceivedFile, StoredFile } from '../commands/types';
import type { Workspace } from '../services/uploads';

const FILE_UID = 'plugin::upload.file';

/** The file entity Strapi's upload service prepares: everything a row holds, and how to read the bytes. */
type FileEntity = Record<string, unknown> & { hash: string; ext: string; mime: string; getStream?: () => fs.ReadStream; filepath?: string };

type UploadService = {
  formatFileInfo: (
    file: { filename: string; type: string; size: number },
    fileInfo: Record<string, unknown>,
    metas: Record<string, unknown>,
  ) => Promise<FileEntity>;
};
type ProviderService = { checkFileSize: (file: FileEntity) => Promise<void>; upload: (file: FileEntity) => Promise<void> };
type UploadProvider = { delete: (file: FileEntity) => Promise<unknown> };

/** Stores `file` under the display name `name` (without extension). Call it inside the request's transaction. */
export const storeReceivedFile = async (
  strapi: Core.Strapi,
  workspace: Workspace,
  file: ReceivedFile,
  name: string,
): Promise<StoredFile> => {
  const { extension, mimeType } = FILE_KINDS[file.kind];
  const filename = `${name}.${extension}`;
  const upload = strapi.plugin('upload');
  const entity = await (upload.service('upload') as unknown as UploadService).formatFileInfo(
    { filename, type: mimeType, size: file.size },
    { name: filename, alternativeText: null, caption: null },
    { tmpWorkingDirectory: workspace.directory },
  );
  await workspace.recordIntent({ hash: entity.hash, ext: entity.ext, mime: entity.mime });
  // From the first byte on: a rollback, now or once this returns (the Idempotency-Key claim lost), takes them too.
  onRollback(() => workspace.track((upload as unknown as { provider: UploadProvider }).provider.delete(entity)));
  entity.filepath = file.path;
  entity.getStream = () => fs.createReadStream(file.path);
  const provider = upload.service('provider') as unknown as ProviderService;
  await provider.checkFileSize(entity);
  await provider.upload(entity);
  entity.provider = (strapi.config.get('plugin::upload') as { provider: string }).provider;
  delete entity.getStream;
  delete entity.tmpWorkingDirectory;
  const row = (await strapi.db.query(FILE_UID).create({ data: entity })) as StoredFile & Record<string, unknown>;
  // What Strapi's upload service announces for a new file (webhooks), in the same shape.
  const media = await sanitize.sanitizers.defaultSanitizeOutput(
    { schema: strapi.getModel(FILE_UID), getModel: (uid) => strapi.getModel(uid as never) },
    row as never,
  );
  strapi.eventHub.emit('media.create', { media });
  return row;
};
