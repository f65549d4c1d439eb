/**
 * The sharp pipeline of a transform (contract section 11): decode (the pixel limit checked from the
 * header first), orient by the EXIF tag, resize without enlarging, encode without metadata. Imports
 * sharp and nothing else of the plugin: the transform processes (assets/transform-worker.ts) load it.
 */
import sharp, { type Sharp } from 'sharp';
import type { Transform } from './transform-query';

/** 50 megapixels (contract section 11): more is refused from the header, without decoding. */
export const MAX_INPUT_PIXELS = 50_000_000;

export const inputOptions = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning' } as const;

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

/** The pipeline that computes `transform` of the image at `file`. */
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
