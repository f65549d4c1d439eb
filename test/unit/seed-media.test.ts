import sharp from 'sharp';
import { renderImage } from '../../src/seed/media/images';
import { renderPdf } from '../../src/seed/media/pdf';
import { planFiles } from '../../src/seed/plan/files';
import type { PlannedImage, PlannedPdf } from '../../src/seed/plan/types';

const files = planFiles();
const images = files.filter((file): file is PlannedImage => file.kind === 'image');
const pdf = files.find((file): file is PlannedPdf => file.kind === 'pdf')!;

test('fifteen distinct images with distinct file names and alt texts', () => {
  expect(images).toHaveLength(15);
  expect(new Set(images.map((image) => image.fileName)).size).toBe(15);
  expect(new Set(images.map((image) => image.alternativeText)).size).toBe(15);
});

test('every pattern renders a valid image of the planned size and format, the same bytes twice', async () => {
  for (const image of images.filter((_, index) => index < 5 || index === 12)) {
    const bytes = await renderImage(image);
    const metadata = await sharp(bytes).metadata();
    expect([image.fileName, metadata.format, metadata.width, metadata.height]).toEqual([
      image.fileName,
      image.format,
      image.width,
      image.height,
    ]);
    expect((await renderImage(image)).equals(bytes)).toBe(true);
  }
});

test('the images are not blank: each has more than one colour', async () => {
  for (const image of images.slice(0, 5)) {
    const stats = await sharp(await renderImage(image)).stats();
    expect(stats.channels.some((channel) => channel.max - channel.min > 40)).toBe(true);
  }
});

test('the PDF is well formed: header, objects at the offsets its xref table claims, trailer', () => {
  const bytes = renderPdf(pdf);
  const text = bytes.toString('latin1');
  expect(text.startsWith('%PDF-1.4\n')).toBe(true);
  expect(text.endsWith('%%EOF\n')).toBe(true);
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)![1]);
  expect(text.slice(startxref, startxref + 4)).toBe('xref');
  const entries = text.slice(startxref).split('\n').slice(3, 8);
  entries.forEach((entry, index) => {
    expect(entry).toMatch(/^\d{10} 00000 n $/);
    const offset = Number(entry.slice(0, 10));
    expect(text.slice(offset, offset + `${index + 1} 0 obj`.length)).toBe(`${index + 1} 0 obj`);
  });
  const stream = /<< \/Length (\d+) >>\nstream\n([\s\S]*?)\nendstream/.exec(text)!;
  expect(Buffer.byteLength(stream[2], 'latin1')).toBe(Number(stream[1]));
  expect(text).toContain('(Product manual) Tj');
});
