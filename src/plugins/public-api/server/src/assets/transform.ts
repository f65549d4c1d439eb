/**
 * Image transforms with sharp, refusing what is unsafe to decode (contract section 11).
 *
 * Order matters: the first bytes must announce a raster format (so SVG, PDF or HTML never reach a
 * decoder, whatever their declared type); then libvips reads the header, and an image over the pixel
 * limit is refused there (`limitInputPixels`), before any pixel is decoded; only then is the image
 * decoded, oriented by its EXIF tag, resized without enlarging, and encoded without its metadata.
 *
 * What the first bytes and the header say is remembered per content (the file's content identity, which
 * changes when the file is replaced): a page's `srcset` asks for several variants of one image, and only
 * the first pays for reading them.
 *
 * A transform is planned first (`planTransform`: the header, the output, the estimated cost), then waits
 * for its turn in the transform queue (assets/fair-queue.ts, services/assets.ts: how many run at once, in
 * what order, for how long, and the lane of cheap transforms), then runs in a process of the transform
 * pool (`runTransform`, assets/transform-pool.ts), which is killed when its time is up.
 */
import sharp, { type Metadata } from 'sharp';
import { readHead } from './bytes';
import { SNIFF_BYTES, sniffRaster } from './sniff';
import { transformCost, type SourceGeometry } from './transform-cost';
import { MAX_INPUT_PIXELS, inputOptions } from './transform-pipeline';
import { PoolProblem, type TransformPool } from './transform-pool';
import { resolveTransform, type OutputFormat, type Transform, type TransformQuery } from './transform-query';

export { MAX_INPUT_PIXELS };

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

const TOO_LARGE = /pixel limit/i;
// sharp's words when the path names no file (deleted since it was sniffed).
const NO_FILE = /^Input file is missing/;

const missing = (file: string) => new TransformProblem('asset_content_missing', `The file ${file} is missing.`);

const tooLarge = () => new TransformProblem('image_too_large', `The image has more than ${MAX_INPUT_PIXELS} pixels.`);

const problemOf = (error: unknown, file: string): TransformProblem => {
  if (error instanceof PoolProblem && error.kind === 'timed_out') return new TransformProblem('transform_timed_out', error.message);
  const message = (error as Error).message ?? String(error);
  if (NO_FILE.test(message)) return missing(file);
  return TOO_LARGE.test(message) ? tooLarge() : new TransformProblem('image_undecodable', message);
};

/** An image to transform: where its bytes are, and what names their content (assets/token.ts). */
export type TransformSource = { path: string; identity: string };

/** What the header of a source says: what the output format and the cost depend on. */
type SourceHeader = SourceGeometry & { hasAlpha: boolean };

// What each content's header said; a file is read once while it is in here.
const HEADERS_MAX_ENTRIES = 10_000;

/** The headers read, by content identity: the assets service keeps one per application. */
export type SourceHeaders = Map<string, SourceHeader>;

export const createSourceHeaders = (): SourceHeaders => new Map();

/**
 * The source's format (from its first bytes: nothing that does not announce a raster format reaches
 * libvips), then its header (dimensions, orientation, alpha; no pixel decoded). Over the pixel limit is
 * refused here, before the transform queue.
 */
const readHeader = async (source: TransformSource, headers: SourceHeaders): Promise<SourceHeader> => {
  const known = headers.get(source.identity);
  if (known) return known;
  const head = await readHead(source.path, SNIFF_BYTES);
  if (head === null) throw missing(source.path);
  const format = sniffRaster(head);
  if (format === null) throw new TransformProblem('not_an_image', 'The file is not a raster image.');
  let metadata: Metadata;
  try {
    metadata = await sharp(source.path, inputOptions).metadata();
  } catch (error) {
    throw problemOf(error, source.path);
  }
  const width = metadata.width ?? 0;
  const height = metadata.height ?? 0;
  if (width * height > MAX_INPUT_PIXELS) throw tooLarge();
  const header: SourceHeader = { format, width, height, orientation: metadata.orientation ?? 1, hasAlpha: metadata.hasAlpha ?? false };
  headers.set(source.identity, header);
  if (headers.size > HEADERS_MAX_ENTRIES) headers.delete(headers.keys().next().value as string);
  return header;
};

/** A transform ready to run: the source, everything the output depends on, and its estimated cost. */
export type PlannedTransform = { source: TransformSource; transform: Transform; cost: number };

/**
 * Reads what a transform needs to know before it waits for its turn: the output (format defaults for the
 * source) and its cost (assets/transform-cost.ts). Throws TransformProblem for what the file cannot give.
 */
export const planTransform = async (source: TransformSource, asked: TransformQuery, headers: SourceHeaders): Promise<PlannedTransform> => {
  const header = await readHeader(source, headers);
  const transform = resolveTransform(asked, header);
  return { source, transform, cost: transformCost(header, transform) };
};

/**
 * Computes a planned variant in one of `pool`'s processes, killed after `timeoutMs` (its CPU is free at
 * once). Throws TransformProblem for what the file cannot give, and when time is up.
 */
export const runTransform = async (
  pool: TransformPool,
  plan: PlannedTransform,
  timeoutMs: number,
): Promise<{ format: OutputFormat; buffer: Buffer }> => {
  try {
    return { format: plan.transform.format, buffer: await pool.run(plan.source.path, plan.transform, timeoutMs) };
  } catch (error) {
    throw problemOf(error, plan.source.path);
  }
};

/** Problems the handler answers as client errors; anything else is a server fault. */
export const isTransformProblem = (error: unknown): error is TransformProblem => error instanceof TransformProblem;
