/**
 * Puts the planned files into Strapi's media library through the upload plugin's service, so they
 * are real uploads with formats (thumbnail, small, medium), dimensions and hashes. A file already in
 * the library under the same name is reused: reruns upload nothing.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { renderImage } from '../media/images';
import { renderPdf } from '../media/pdf';
import type { PlannedFile } from '../plan/types';

export const FILE_UID = 'plugin::upload.file';

type UploadService = {
  upload: (input: {
    data: { fileInfo: { name: string; alternativeText?: string; caption?: string } };
    files: { filepath: string; originalFilename: string; mimetype: string; size: number };
  }) => Promise<Array<{ id: number; name: string }>>;
};

export type FileIds = ReadonlyMap<string, number>;

const contentOf = async (file: PlannedFile): Promise<{ bytes: Buffer; mime: string }> =>
  file.kind === 'pdf'
    ? { bytes: renderPdf(file), mime: 'application/pdf' }
    : { bytes: await renderImage(file), mime: file.format === 'png' ? 'image/png' : 'image/jpeg' };

export const ensureFiles = async (
  strapi: Core.Strapi,
  files: readonly PlannedFile[],
): Promise<{ ids: FileIds; uploaded: number; reused: number }> => {
  const existing = (await strapi.db.query(FILE_UID).findMany({
    select: ['id', 'name'],
    where: { name: { $in: files.map((file) => file.fileName) } },
    orderBy: { id: 'asc' },
  })) as Array<{ id: number; name: string }>;
  const ids = new Map<string, number>();
  const byName = new Map<string, number>();
  // The oldest upload of a name wins, should an editor have uploaded the same name again.
  for (const row of existing) if (!byName.has(row.name)) byName.set(row.name, row.id);

  const upload = strapi.plugin('upload').service('upload') as UploadService;
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'seed-files-'));
  let uploaded = 0;
  try {
    for (const file of files) {
      const reused = byName.get(file.fileName);
      if (reused !== undefined) {
        ids.set(file.key, reused);
        continue;
      }
      const { bytes, mime } = await contentOf(file);
      const filepath = path.join(workDir, file.fileName);
      await fs.writeFile(filepath, bytes);
      const [stored] = await upload.upload({
        data: {
          fileInfo: {
            name: file.fileName,
            alternativeText: file.kind === 'image' ? file.alternativeText : undefined,
            caption: file.caption,
          },
        },
        files: { filepath, originalFilename: file.fileName, mimetype: mime, size: bytes.length },
      });
      ids.set(file.key, stored.id);
      uploaded += 1;
    }
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
  return { ids, uploaded, reused: files.length - uploaded };
};
