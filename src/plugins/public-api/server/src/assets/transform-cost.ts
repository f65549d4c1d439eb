/**
 * What a transform costs, estimated before it runs from the source's header (its dimensions, orientation
 * and format) and the transform asked: the pixels decoded and the pixels encoded, each weighed by what a
 * pixel costs to decode or to encode in the output format. The transform queue runs cheap transforms on a
 * lane of their own (assets/fair-queue.ts), so a first thumbnail never waits behind large encodings. Pure.
 *
 * The weights are relative (a JPEG-encoded megapixel is 1) and rough, from libvips' encoders on this
 * project's bench images: AVIF encodes about ten times slower per pixel than JPEG, WebP about three times,
 * PNG about twice; decoding costs about a quarter of a JPEG encoding. JPEG and WebP sources shrink while
 * they load (up to 8 times per side), so a small output of a large one decodes far fewer pixels.
 */
import type { RasterFormat } from './sniff';
import type { OutputFormat, Transform } from './transform-query';

/** What the estimate needs of the source: its stored dimensions and EXIF orientation (1-8). */
export type SourceGeometry = { format: RasterFormat; width: number; height: number; orientation: number };

export const ENCODE_WEIGHT: Record<OutputFormat, number> = { jpeg: 1, png: 2, webp: 3, avif: 10 };
export const DECODE_WEIGHT = 0.25;
/** Sources libvips decodes at a reduced scale when the output is smaller (shrink-on-load). */
const SHRINK_ON_LOAD = new Set<RasterFormat>(['jpeg', 'webp']);
const MAX_SHRINK_ON_LOAD = 8;

/**
 * At most this cost is a cheap transform: e.g. a 400-pixel-wide WebP of a 2400 x 1600 JPEG (0.35), or a
 * 200 x 200 AVIF crop of it (0.42); not a 640-pixel-wide WebP of it (0.89), nor anything of a 4-megapixel
 * PNG (1.0 to decode it alone).
 */
export const CHEAP_TRANSFORM_COST = 0.5;

/** The output's width and height (no enlargement, sharp's fits), from the upright source's. */
export const outputSize = (source: { width: number; height: number }, transform: Pick<Transform, 'width' | 'height' | 'fit'>) => {
  const { width: W, height: H } = source;
  const { width: w, height: h } = transform;
  const scaled = (scale: number) => ({ width: Math.max(1, Math.round(W * scale)), height: Math.max(1, Math.round(H * scale)) });
  if (w === null && h === null) return { width: W, height: H };
  if (h === null) return scaled(Math.min(1, w! / W));
  if (w === null) return scaled(Math.min(1, h / H));
  switch (transform.fit ?? 'inside') {
    case 'inside':
      return scaled(Math.min(1, w / W, h / H));
    case 'outside':
      return scaled(Math.min(1, Math.max(w / W, h / H)));
    default:
      // cover, contain, fill: the box asked for, never larger than the source.
      return { width: Math.min(w, W), height: Math.min(h, H) };
  }
};

/** The estimated cost of `transform` on `source`, in JPEG-encoded megapixels. */
export const transformCost = (source: SourceGeometry, transform: Pick<Transform, 'width' | 'height' | 'fit' | 'format'>): number => {
  // EXIF orientations 5 to 8 turn the image a quarter: the output is fitted to the upright image.
  const upright = source.orientation >= 5 ? { width: source.height, height: source.width } : source;
  const output = outputSize(upright, transform);
  const outputPixels = output.width * output.height;
  const sourcePixels = source.width * source.height;
  const decoded = SHRINK_ON_LOAD.has(source.format)
    ? Math.min(sourcePixels, Math.max(outputPixels, sourcePixels / MAX_SHRINK_ON_LOAD ** 2))
    : sourcePixels;
  return (DECODE_WEIGHT * decoded + ENCODE_WEIGHT[transform.format] * outputPixels) / 1_000_000;
};

export const isCheapTransform = (cost: number): boolean => cost <= CHEAP_TRANSFORM_COST;

/**
 * The cost one client (an address class, http/client-address.ts) may have running at once (assets/fair-queue.ts):
 * e.g. three 1000-pixel-wide WebPs of a 6000 x 4000 JPEG (2.2 each), but one 1000-pixel-wide AVIF of it
 * (6.8) at a time, and a full-size AVIF of it (246) alone. A client with nothing running may always start
 * one transform, whatever its cost.
 */
export const CLIENT_TRANSFORM_COST = 8;

/**
 * Over this cost a transform is expensive: expensive ones hold at most all general turns of the queue but
 * one (assets/fair-queue.ts), so medium transforms (a 1000-pixel-wide WebP of a 6000 x 4000 JPEG: 2.2) are
 * not left waiting for a flood of large encodings (its 1000-pixel-wide AVIF: 6.8) from many addresses.
 */
export const EXPENSIVE_TRANSFORM_COST = 4;
