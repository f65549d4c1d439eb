/**
 * Image transform parameters of an asset URL (contract section 11). Pure.
 *
 * `parseTransformQuery` reads what was asked and rejects anything else with 400s that name the parameter;
 * `resolveTransform` fills in the defaults for a given source image, so that requests asking for the same
 * output (`?w=200` and `?w=200&fit=inside&q=80` on a JPEG) share one cached variant.
 */
import { apiError, apiErrors, type ErrorObject } from '../http/errors';
import { echo } from '../query/problems';

export const FITS = ['cover', 'contain', 'inside', 'outside', 'fill'] as const;
export const OUTPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif'] as const;
export const TRANSFORM_PARAMETERS = ['w', 'h', 'fit', 'format', 'q'] as const;

export type Fit = (typeof FITS)[number];
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const MAX_DIMENSION = 4096;
export const DEFAULT_FIT: Fit = 'inside';
/** sharp's own defaults, written down so that they are part of the cache key. */
export const DEFAULT_QUALITY: Record<Exclude<OutputFormat, 'png'>, number> = { jpeg: 80, webp: 80, avif: 50 };

/** What the URL asks for; null where it is silent. */
export type TransformQuery = {
  width: number | null;
  height: number | null;
  fit: Fit | null;
  format: OutputFormat | null;
  quality: number | null;
};

/** Everything the output depends on, defaults filled in. */
export type Transform = {
  width: number | null;
  height: number | null;
  /** Only meaningful with both dimensions; null otherwise (one dimension keeps the aspect ratio). */
  fit: Fit | null;
  format: OutputFormat;
  /** Null for PNG, which is lossless here. */
  quality: number | null;
};

export type AssetParameterReason = 'unknown_parameter' | 'parameter_repeated' | 'parameter_invalid';

const problem = (parameter: string, detail: string, reason: AssetParameterReason): ErrorObject =>
  apiError(400, detail, { source: { parameter }, reason }).errors[0]!;

// Digits only, no sign, no leading zero, no exponent: `w=1e3` and `w=0100` are mistakes, not synonyms.
const INTEGER = /^[1-9]\d{0,3}$/;

const integerIn = (text: string, max: number): number | null => (INTEGER.test(text) && Number(text) <= max ? Number(text) : null);

const oneOf = <T extends string>(values: readonly T[], text: string): T | null =>
  (values as readonly string[]).includes(text) ? (text as T) : null;

/**
 * The transform an asset URL asks for, or null when it asks for none (the original). Every parameter is
 * judged and all problems are reported at once, in the order sent.
 */
export const parseTransformQuery = (query: URLSearchParams): TransformQuery | null => {
  const problems: ErrorObject[] = [];
  const asked: TransformQuery = { width: null, height: null, fit: null, format: null, quality: null };
  let any = false;
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    // Repeated before unknown, as the read parsers judge it: a name sent twice is one `parameter_repeated`.
    if (values.length > 1) {
      problems.push(problem(name, `The query parameter ${echo(name)} is given more than once.`, 'parameter_repeated'));
      continue;
    }
    if (!(TRANSFORM_PARAMETERS as readonly string[]).includes(name)) {
      problems.push(
        problem(name, `Unknown query parameter ${echo(name)}; an asset takes ${TRANSFORM_PARAMETERS.join(', ')}.`, 'unknown_parameter'),
      );
      continue;
    }
    any = true;
    const text = values[0]!;
    switch (name) {
      case 'w':
      case 'h': {
        const value = integerIn(text, MAX_DIMENSION);
        if (value === null) {
          problems.push(problem(name, `${name} must be an integer from 1 to ${MAX_DIMENSION}; got ${echo(text)}.`, 'parameter_invalid'));
        } else if (name === 'w') asked.width = value;
        else asked.height = value;
        break;
      }
      case 'fit':
        asked.fit = oneOf(FITS, text);
        if (asked.fit === null)
          problems.push(problem(name, `fit must be one of ${FITS.join(', ')}; got ${echo(text)}.`, 'parameter_invalid'));
        break;
      case 'format':
        asked.format = oneOf(OUTPUT_FORMATS, text);
        if (asked.format === null) {
          problems.push(problem(name, `format must be one of ${OUTPUT_FORMATS.join(', ')}; got ${echo(text)}.`, 'parameter_invalid'));
        }
        break;
      case 'q':
        asked.quality = integerIn(text, 100);
        if (asked.quality === null)
          problems.push(problem(name, `q must be an integer from 1 to 100; got ${echo(text)}.`, 'parameter_invalid'));
        break;
    }
  }
  if (problems.length) throw apiErrors(400, problems);
  return any ? asked : null;
};

/** The parameters of a query that were sent, for errors about the transform as a whole. */
export const firstTransformParameter = (query: URLSearchParams): string =>
  [...query.keys()].find((name) => (TRANSFORM_PARAMETERS as readonly string[]).includes(name)) ?? 'w';

/**
 * One form per output whatever the source: fit only with both dimensions (one dimension keeps the aspect
 * ratio whatever the fit), and no quality for PNG (lossless here).
 */
export const normalizeTransformQuery = (asked: TransformQuery): TransformQuery => ({
  width: asked.width,
  height: asked.height,
  fit: asked.width !== null && asked.height !== null ? (asked.fit ?? DEFAULT_FIT) : null,
  format: asked.format,
  quality: asked.format === 'png' ? null : asked.quality,
});

/**
 * The full transform for a source image. The output keeps the source's format when it is one we write,
 * else PNG for images with alpha and JPEG for the rest (GIF, TIFF, HEIF sources).
 */
export const resolveTransform = (asked: TransformQuery, source: { format: string; hasAlpha: boolean }): Transform => {
  const sourceFormat = oneOf(OUTPUT_FORMATS, source.format);
  const format = asked.format ?? sourceFormat ?? (source.hasAlpha || source.format === 'gif' ? 'png' : 'jpeg');
  return {
    width: asked.width,
    height: asked.height,
    fit: asked.width !== null && asked.height !== null ? (asked.fit ?? DEFAULT_FIT) : null,
    format,
    quality: format === 'png' ? null : (asked.quality ?? DEFAULT_QUALITY[format]),
  };
};

export const MIME_OF_FORMAT: Record<OutputFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
};
