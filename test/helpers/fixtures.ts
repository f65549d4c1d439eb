/**
 * Small, exact content for read tests, written the way editors write it: through the document service
 * (published, drafts, localizations) and the upload plugin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import sharp from 'sharp';

type Doc = { documentId: string; id: number };

export const ensureLocale = async (strapi: Core.Strapi, code: string, name: string) => {
  const existing = await strapi.db.query('plugin::i18n.locale').findOne({ where: { code } });
  if (!existing) await strapi.db.query('plugin::i18n.locale').create({ data: { code, name } });
  (strapi.plugin('public-api').service('locales') as { forget: () => void }).forget();
};

export const uploadImage = async (strapi: Core.Strapi, name: string, width = 64, height = 48, alt = `${name} alt`) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-img-'));
  const file = path.join(dir, name);
  await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .png()
    .toFile(file);
  const [uploaded] = (await strapi
    .plugin('upload')
    .service('upload')
    .upload({
      data: { fileInfo: { alternativeText: alt, caption: `${name} caption`, name } },
      files: { filepath: file, originalFilename: name, mimetype: 'image/png', size: fs.statSync(file).size },
    })) as { id: number; documentId: string; name: string }[];
  return uploaded!;
};

export const publish = async (strapi: Core.Strapi, uid: string, data: Record<string, unknown>, locale?: string): Promise<Doc> =>
  (await strapi
    .documents(uid as never)
    .create({ data: data as never, status: 'published', ...(locale ? { locale } : {}) })) as unknown as Doc;

export const draft = async (strapi: Core.Strapi, uid: string, data: Record<string, unknown>): Promise<Doc> =>
  (await strapi.documents(uid as never).create({ data: data as never })) as unknown as Doc;

export const localize = async (strapi: Core.Strapi, uid: string, documentId: string, locale: string, data: Record<string, unknown>) =>
  strapi.documents(uid as never).update({ documentId, locale, data: data as never, status: 'published' } as never);

export const BLOCKS = [
  { type: 'heading', level: 2, children: [{ type: 'text', text: 'About' }] },
  {
    type: 'paragraph',
    children: [
      { type: 'text', text: 'Hello ' },
      { type: 'text', text: 'world', bold: true },
      { type: 'text', text: '' },
      { type: 'link', url: 'https://example.com', children: [{ type: 'text', text: 'link' }] },
      { type: 'text', text: '' },
    ],
  },
];

export const website = async (strapi: Core.Strapi, slug: string, publications: unknown[]): Promise<Doc> =>
  (await strapi.documents('plugin::public-api.website').create({ data: { name: slug, slug, publications } as never })) as unknown as Doc;

/** A file that is not an image (a small PDF-like document), through the upload plugin. */
export const uploadDocument = async (strapi: Core.Strapi, name: string, mime = 'application/pdf') => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-doc-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, '%PDF-1.4\n% test document\n');
  const [uploaded] = (await strapi
    .plugin('upload')
    .service('upload')
    .upload({
      data: { fileInfo: { alternativeText: null, caption: null, name } },
      files: { filepath: file, originalFilename: name, mimetype: mime, size: fs.statSync(file).size },
    })) as { id: number; documentId: string; name: string }[];
  return uploaded!;
};
