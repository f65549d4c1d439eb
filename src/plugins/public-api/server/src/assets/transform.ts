/**
 * Image transforms with sharp, refusing what is unsafe to decode (contract section 11).
 *
 * Order matters: the first bytes must announce a raster format (so SVG, PDF or HTML never reach a
 * decoder, whatever their declared type); then libvips reads the header, and an image over the pixel
 * limit is refused there (`limitInputPixels`), before any pixel is decoded; only then is the image
 * decoded, oriented by its EXIF tag, resized without enlarging, and encoded without its metadata.
 *
 * What the first bytes announce is remembered per content (the file's content identity, which changes
 * when the file is replaced): a page's `srcset` asks for several variants of one image, and only the
 * first pays for reading them.
 *
 * How many transforms run at once, in what order they wait and for how long is the transform queue's
 * (assets/fair-queue.ts, services/assets.ts); a transform itself stops when its time is up.
 */
import sharp, { type Sharp } from 'sharp';
import { readHead } from './bytes';
import { SNIFF_BYTES, sniffRaster, type RasterFormat } from './sniff';
import { resolveTransform, type OutputFormat, type Transform, type TransformQuery } from './transform-query';

/** 50 megapixels (contract section 11): more is refused from the header, without decoding. */
export const MAX_INPUT_PIXELS = 50_000_000;

export type TransformProblemReason =
  'not_an_image' | 'image_too_large' | 'image_undecodable' | 'asset_content_missing' | 'transform_timed_out';

/** Why an image could not be transformed; the handler turns it into a response. */
export class TransformProblem extends Error {
  constructor(
    readonly reason: TransformProblemReason,
    message: string,
  ) {
    super(message);
    this.name = 'TransformProblem';
  }
}

const inputOptions = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning' } as const;

const encode = (pipeline: Sharp, transform: Transform): Sharp => {
  switch (transform.format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: transform.quality! });
    case 'webp':
      return pipeline.webp({ quality: transform.quality! });
    case 'avif':
      return pipeline.avif({ quality: transform.quality! });
    case 'png':
      return pipeline.png();
  }
};

/**
 * The sharp pipeline of a transform: decode (header first), orient, resize, encode; libvips stops it
 * after `timeoutSeconds` (0: never).
 */
export const transformPipeline = (file: string, transform: Transform, timeoutSeconds = 0): Sharp => {
  let pipeline = sharp(file, { ...inputOptions, autoOrient: true });
  if (transform.width !== null || transform.height !== null) {
    pipeline = pipeline.resize({
      width: transform.width ?? undefined,
      height: transform.height ?? undefined,
      fit: transform.fit ?? 'inside',
      withoutEnlargement: true,
    });
  }
  return encode(pipeline, transform).timeout({ seconds: timeoutSeconds });
};

const TOO_LARGE = /pixel limit/i;
// libvips' words when a pipeline ran out of time (`timeout`).
const TIMED_OUT = /^timeout: \d+% complete/;
// sharp's words when the path names no file (deleted since it was sniffed).
const NO_FILE = /^Input file is missing/;

const missing = (file: string) => new TransformProblem('asset_content_missing', `The file ${file} is missing.`);

const problemOf = (error: unknown, file: string): TransformProblem => {
  const message = (error as Error).message ?? String(error);
  if (NO_FILE.test(message)) return missing(file);
  if (TIMED_OUT.test(message)) return new TransformProblem('transform_timed_out', 'The transform took longer than its time limit.');
  return TOO_LARGE.test(message)
    ? new TransformProblem('image_too_large', `The image has more than ${MAX_INPUT_PIXELS} pixels.`)
    : new TransformProblem('image_undecodable', message);
};

const HEADER_DECIDES_OUTPUT = new Set<RasterFormat>(['tiff', 'heif']);

/** An image to transform: where its bytes are, and what names their content (assets/token.ts). */
export type TransformSource = { path: string; identity: string };

// What each content's first bytes announced; a file is sniffed once while it is in here.
const SNIFFED_MAX_ENTRIES = 10_000;
const sniffed = new Map<string, RasterFormat>();

const sniff = async (source: TransformSource): Promise<RasterFormat> => {
  const known = sniffed.get(source.identity);
  if (known) return known;
  const head = await readHead(source.path, SNIFF_BYTES);
  if (head === null) throw missing(source.path);
  const format = sniffRaster(head);
  if (format === null) throw new TransformProblem('not_an_image', 'The file is not a raster image.');
  sniffed.set(source.identity, format);
  if (sniffed.size > SNIFFED_MAX_ENTRIES) sniffed.delete(sniffed.keys().next().value as string);
  return format;
};

/**
 * What the output format depends on: the sniffed format, and for sources we do not write (GIF, TIFF,
 * HEIF) whether they have alpha, which only their header tells.
 */
const describeSource = async (source: TransformSource, asked: TransformQuery): Promise<{ format: RasterFormat; hasAlpha: boolean }> => {
  const format = await sniff(source);
  if (asked.format !== null || !HEADER_DECIDES_OUTPUT.has(format)) return { format, hasAlpha: false };
  try {
    return { format, hasAlpha: (await sharp(source.path, inputOptions).metadata()).hasAlpha ?? false };
  } catch (error) {
    throw problemOf(error, source.path);
  }
};

/**
 * Computes a variant of an image, stopped after `timeoutMs` (rounded up to whole seconds, libvips'
 * unit). Throws TransformProblem for what the file cannot give, and when time is up.
 */
export const transformImage = async (
  source: TransformSource,
  asked: TransformQuery,
  timeoutMs: number,
): Promise<{ format: OutputFormat; buffer: Buffer }> => {
  const transform = resolveTransform(asked, await describeSource(source, asked));
  try {
    const timeoutSeconds = Math.max(1, Math.ceil(timeoutMs / 1000));
    return { format: transform.format, buffer: await transformPipeline(source.path, transform, timeoutSeconds).toBuffer() };
  } catch (error) {
    throw problemOf(error, source.path);
  }
};

/** Problems the handler answers as client errors; anything else is a server fault. */
export const isTransformProblem = (error: unknown): error is TransformProblem => error instanceof TransformProblem;
