/**
 * Image transforms with sharp, refusing what is unsafe to decode (contract section 11).
 *
 * Order matters: the first bytes must announce a raster format (so SVG, PDF or HTML never reach a
 * decoder, whatever their declared type); then libvips reads the header, and an image over the pixel
 * limit is refused there (`limitInputPixels`), before any pixel is decoded; only then is the image
 * decoded, oriented by its EXIF tag, resized without enlarging, and encoded without its metadata.
 */
import { availableParallelism } from 'node:os';
import sharp, { type Sharp } from 'sharp';
import { readHead } from './bytes';
import { SNIFF_BYTES, sniffRaster, type RasterFormat } from './sniff';
import { resolveTransform, type OutputFormat, type Transform, type TransformQuery } from './transform-query';

/** 50 megapixels (contract section 11): more is refused from the header, without decoding. */
export const MAX_INPUT_PIXELS = 50_000_000;

export type TransformProblemReason = 'not_an_image' | 'image_too_large' | 'image_undecodable' | 'asset_content_missing';

/** Why an image could not be transformed; the handler turns it into a response. */
export class TransformProblem extends Error {
  constructor(
    readonly reason: TransformProblemReason,
    message: string
  ) {
    super(message);
    this.name = 'TransformProblem';
  }
}

// Decoding is memory-hungry: at most this many transforms run at once, the rest wait their turn.
const MAX_CONCURRENT = Math.max(1, availableParallelism());
let running = 0;
const waiting: (() => void)[] = [];

const withSlot = async <T>(work: () => Promise<T>): Promise<T> => {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
};

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

/** The sharp pipeline of a transform: decode (header first), orient, resize, encode. */
export const transformPipeline = (file: string, transform: Transform): Sharp => {
  let pipeline = sharp(file, { ...inputOptions, autoOrient: true });
  if (transform.width !== null || transform.height !== null) {
    pipeline = pipeline.resize({
      width: transform.width ?? undefined,
      height: transform.height ?? undefined,
      fit: transform.fit ?? 'inside',
      withoutEnlargement: true,
    });
  }
  return encode(pipeline, transform);
};

const TOO_LARGE = /pixel limit/i;

const problemOf = (error: unknown): TransformProblem => {
  const message = (error as Error).message ?? String(error);
  return TOO_LARGE.test(message)
    ? new TransformProblem('image_too_large', `The image has more than ${MAX_INPUT_PIXELS} pixels.`)
    : new TransformProblem('image_undecodable', message);
};

const HEADER_DECIDES_OUTPUT = new Set<RasterFormat>(['tiff', 'heif']);

/**
 * What the output format depends on: the sniffed format, and for sources we do not write (GIF, TIFF,
 * HEIF) whether they have alpha, which only their header tells.
 */
const describeSource = async (file: string, asked: TransformQuery): Promise<{ format: RasterFormat; hasAlpha: boolean }> => {
  const head = await readHead(file, SNIFF_BYTES);
  if (head === null) throw new TransformProblem('asset_content_missing', `The file ${file} is missing.`);
  const format = sniffRaster(head);
  if (format === null) throw new TransformProblem('not_an_image', 'The file is not a raster image.');
  if (asked.format !== null || !HEADER_DECIDES_OUTPUT.has(format)) return { format, hasAlpha: false };
  try {
    return { format, hasAlpha: (await sharp(file, inputOptions).metadata()).hasAlpha ?? false };
  } catch (error) {
    throw problemOf(error);
  }
};

/** Computes a variant of the image at `file`. Throws TransformProblem for what the file cannot give. */
export const transformImage = (file: string, asked: TransformQuery): Promise<{ format: OutputFormat; buffer: Buffer }> =>
  withSlot(async () => {
    const transform = resolveTransform(asked, await describeSource(file, asked));
    try {
      return { format: transform.format, buffer: await transformPipeline(file, transform).toBuffer() };
    } catch (error) {
      throw problemOf(error);
    }
  });

/** Problems the handler answers as client errors; anything else is a server fault. */
export const isTransformProblem = (error: unknown): error is TransformProblem => error instanceof TransformProblem;
