/**
 * GET and HEAD /assets/{token}/{fileName}: a file referenced from content, as stored or transformed
 * (contract section 11). No key: the URL is the capability.
 *
 * Answers carry a strong ETag (304 on If-None-Match), one byte range on request (206, 416), and are
 * cacheable for a year: the URL changes whenever the file does.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { openFileBytes, type Bytes } from '../assets/bytes';
import { CACHE_FOREVER, SVG_MIME, deliveredMime, deliveryHeaders } from '../assets/delivery';
import { notAPreset, presetOf } from '../assets/presets';
import {
  MAX_INPUT_PIXELS,
  isTransformProblem,
  planTransform,
  runTransform,
  type TransformProblem,
  type TransformSource,
} from '../assets/transform';
import { isCheapTransform } from '../assets/transform-cost';
import {
  MIME_OF_FORMAT,
  firstTransformParameter,
  normalizeTransformQuery,
  parseTransformQuery,
  type TransformQuery,
} from '../assets/transform-query';
import { pluginConfig } from '../config';
import { contentRange, decideRange, noneMatchHits, unsatisfiedRange } from '../http/conditional';
import { apiError } from '../http/errors';
import { headerValue } from '../http/headers';
import type { ApiResponse, PublicHandler, PublicRequest } from '../http/request';
import { contentIdentity } from '../assets/token';
import type { StoredFile } from '../services/assets';
import { getService } from '../utils/get-service';

/** What is served: its tag is known before any byte is read, so a 304 reads none. */
type Representation = {
  etag: string;
  /** The bytes and their Content-Type (and safety) headers, or null when the file is gone. */
  open: () => Promise<{ bytes: Bytes; headers: Record<string, string> } | null>;
};

// Bumped when the way variants are produced changes, so old cached variants are never served again.
const VARIANT_VERSION = 'v1';
const ENGINE = `sharp ${sharp.versions.sharp} vips ${sharp.versions.vips}`;

const digest = (text: string) => createHash('sha256').update(text).digest();

const notFound = (reason: string) => apiError(404, 'No asset exists at this URL.', { reason });

const contentMissing = (file: StoredFile) => {
  // The record still points at a file whose bytes are gone: a fault for operators, a 404 for the client.
  strapi.log.warn(`[public-api] asset ${file.documentId} (${file.url}) is referenced but its file is missing`);
  return notFound('asset_content_missing');
};

/** What a client asked to wait before asking for a transform again, when the queue could not serve it. */
export const TRANSFORM_RETRY_AFTER_SECONDS = 5;

const transformsBusy = () =>
  apiError(503, `Too many image transforms are waiting; retry in ${TRANSFORM_RETRY_AFTER_SECONDS} seconds.`, {
    reason: 'transforms_busy',
    headers: { 'Retry-After': String(TRANSFORM_RETRY_AFTER_SECONDS) },
  });

const transformTimedOut = () =>
  apiError(503, `The transform did not finish in time; retry in ${TRANSFORM_RETRY_AFTER_SECONDS} seconds, or ask for a smaller variant.`, {
    reason: 'transform_timed_out',
    headers: { 'Retry-After': String(TRANSFORM_RETRY_AFTER_SECONDS) },
  });

/**
 * A transform is planned (the source's header, the output, its estimated cost), then takes its turn in
 * the transform queue (fair between client addresses, bounded; cheap transforms have a lane of their
 * own), and the client is answered 503 when the configured time limit, waiting included, is up. libvips
 * stops what it can at the limit (`timeout`), but not an encoder already running (AVIF, WebP): the turn
 * is held until the work has really ended, so what runs stays bounded even when clients were answered
 * already.
 */
const queuedTransform = async (client: string, source: TransformSource, asked: TransformQuery) => {
  const limitMs = pluginConfig(strapi).transformTimeoutMs;
  const started = Date.now();
  const plan = await planTransform(source, asked);
  const admission = await getService('assets')
    .transforms()
    .enter(client, isCheapTransform(plan.cost) ? 'cheap' : 'heavy');
  if (admission.kind === 'refused') throw transformsBusy();
  if (admission.kind === 'timed_out') throw transformTimedOut();
  const remainingMs = limitMs - (Date.now() - started);
  const work = runTransform(plan, remainingMs);
  work.then(admission.release, admission.release);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(transformTimedOut()), Math.max(0, remainingMs));
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

const transformRefused = (problem: TransformProblem, parameter: string) => {
  switch (problem.reason) {
    case 'transform_timed_out':
      return transformTimedOut();
    case 'image_too_large':
      return apiError(
        422,
        `This image has more than ${MAX_INPUT_PIXELS / 1_000_000} megapixels and is not transformed; request the original without parameters.`,
        {
          reason: 'image_too_large',
        },
      );
    case 'image_undecodable':
      return apiError(422, 'This image cannot be decoded and is not transformed; request the original without parameters.', {
        reason: 'image_undecodable',
      });
    default:
      // The declared type said image, the bytes do not (SVG or anything else): never decoded.
      return apiError(
        400,
        'Transforms apply to raster images (JPEG, PNG, GIF, WebP, AVIF, HEIF, TIFF) only; request the file without parameters.',
        {
          source: { parameter },
          reason: 'not_an_image',
        },
      );
  }
};

/** Sends a representation, honouring If-None-Match, Range and If-Range. */
const answer = async (request: PublicRequest, representation: Representation, onMissing: () => Error): Promise<ApiResponse> => {
  const { etag } = representation;
  const caching = { ETag: etag, 'Cache-Control': CACHE_FOREVER };
  if (noneMatchHits(headerValue(request.headers, 'if-none-match'), etag)) return { status: 304, headers: caching };
  const opened = await representation.open();
  if (!opened) throw onMissing();
  const { bytes } = opened;
  const decision = decideRange(headerValue(request.headers, 'range'), headerValue(request.headers, 'if-range'), bytes.size, etag);
  if (decision.kind === 'unsatisfiable') {
    await bytes.release();
    throw apiError(416, `The requested range lies outside the ${bytes.size} bytes of this file.`, {
      source: { header: 'Range' },
      reason: 'range_not_satisfiable',
      headers: { 'Content-Range': unsatisfiedRange(bytes.size), 'Accept-Ranges': 'bytes' },
    });
  }
  const headers = { ...opened.headers, ...caching, 'Accept-Ranges': 'bytes' };
  if (decision.kind === 'partial') {
    const { range } = decision;
    return {
      status: 206,
      headers: { ...headers, 'Content-Range': contentRange(range, bytes.size), 'Content-Length': String(range.end - range.start + 1) },
      content: bytes.read(range),
    };
  }
  return { status: 200, headers: { ...headers, 'Content-Length': String(bytes.size) }, content: bytes.read(null) };
};

const original = (file: StoredFile, filePath: string): Representation => ({
  // The content identity changes whenever the bytes do (a replaced file gets a new version), so it tags them.
  etag: `"${digest(`original:${contentIdentity(file)}`)
    .toString('base64url')
    .slice(0, 32)}"`,
  open: async () => {
    const bytes = await openFileBytes(filePath);
    return bytes && { bytes, headers: deliveryHeaders(file.mime) };
  },
});

/** A transformed image: computed on first request, then served from the variant cache. */
const variant = (client: string, file: StoredFile, filePath: string, asked: TransformQuery, parameter: string): Representation => {
  // Keyed by what was asked, not by its resolved form: a cached variant is found without reading the source.
  const key = digest(JSON.stringify([VARIANT_VERSION, ENGINE, contentIdentity(file), asked])).toString('hex');
  return {
    etag: `"${key.slice(0, 40)}"`,
    open: async () => {
      try {
        const found = await getService('assets')
          .variants()
          .get(key, () => queuedTransform(client, { path: filePath, identity: contentIdentity(file) }, asked));
        return { bytes: found.bytes, headers: { 'Content-Type': MIME_OF_FORMAT[found.format] } };
      } catch (error) {
        if (!isTransformProblem(error)) throw error;
        if (error.reason === 'asset_content_missing') return null;
        throw transformRefused(error, parameter);
      }
    },
  };
};

export const asset: PublicHandler = async (request) => {
  const assets = getService('assets');
  const file = await assets.resolve(request.params.token!, request.params.fileName!);
  if (!file) throw notFound('asset_not_found');
  const asked = parseTransformQuery(request.query);
  const filePath = assets.pathOf(file);
  if (asked === null) {
    if (!filePath) throw contentMissing(file);
    return answer(request, original(file, filePath), () => contentMissing(file));
  }
  const parameter = firstTransformParameter(request.query);
  const mime = deliveredMime(file.mime);
  if (mime === SVG_MIME) {
    throw apiError(400, 'SVG images are served as they are and never transformed; request the file without parameters.', {
      source: { parameter },
      reason: 'svg_not_transformable',
    });
  }
  if (!mime.startsWith('image/')) {
    throw apiError(400, 'Transforms apply to images only; request the file without parameters.', {
      source: { parameter },
      reason: 'not_an_image',
    });
  }
  const normalized = normalizeTransformQuery(asked);
  const presets = assets.presets();
  if (presets && !presetOf(presets, normalized)) throw notAPreset(presets, parameter);
  if (!filePath) throw contentMissing(file);
  return answer(request, variant(request.client, file, filePath, normalized, parameter), () => contentMissing(file));
};
