/**
 * GET and HEAD /assets/{token}/{fileName}: a file referenced from content, as stored or transformed
 * (contract section 11). No key: the URL is the capability.
 *
 * Answers carry a strong ETag (304 on If-None-Match), one byte range on request (206, 416), and are
 * cacheable for a year: the URL changes whenever the file does.
 *
 * A local provider's file is read from disk. Any other provider's (S3...) is read from its origin
 * (assets/origin.ts), with the same tags and answers: a 304 asks the origin nothing, a range is
 * forwarded to it, and a transform works on a temporary copy of the original (assets/origin-sources.ts)
 * whose variant is cached like any other.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { openFileBytes, streamedBytes, type Bytes } from '../assets/bytes';
import { fetchOrigin, forwardableRange, isOriginProblem, type OriginLimits, type OriginProblem } from '../assets/origin';
import { CACHE_FOREVER, SVG_MIME, deliveredMime, deliveryHeaders } from '../assets/delivery';
import { notAPreset, presetOf } from '../assets/presets';
import {
  MAX_INPUT_PIXELS,
  isTransformProblem,
  planTransform,
  runTransform,
  TransformProblem,
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
import { apiError, type ReasonOf } from '../http/errors';
import { headerValue } from '../http/headers';
import type { ApiResponse, PublicHandler, PublicRequest } from '../http/request';
import { contentIdentity } from '../assets/token';
import type { StoredFile } from '../services/assets';
import { getService } from '../utils/get-service';

/** What is served: its tag is known before any byte is read, so a 304 reads none. */
type Representation = {
  etag: string;
  /**
   * The bytes and their Content-Type (and safety) headers, or null when the file is gone. `range`: the
   * one byte range the answer will likely send (a hint an origin is given; the bytes may cover more).
   */
  open: (range: string | null) => Promise<{ bytes: Bytes; headers: Record<string, string> } | null>;
};

// Bumped when the way variants are produced changes, so old cached variants are never served again.
const VARIANT_VERSION = 'v1';
const ENGINE = `sharp ${sharp.versions.sharp} vips ${sharp.versions.vips}`;

const digest = (text: string) => createHash('sha256').update(text).digest();

const notFound = (reason: ReasonOf<404>) => apiError(404, 'No asset exists at this URL.', { reason });

const contentMissing = (file: StoredFile) => {
  // The record still points at a file whose bytes are gone: a fault for operators, a 404 for the client.
  strapi.log.warn(`[public-api] asset ${file.documentId} (${file.url}) is referenced but its file is missing`);
  return notFound('asset_content_missing');
};

/** What a client is asked to wait before asking again when an origin is busy or slow. */
export const ORIGIN_RETRY_AFTER_SECONDS = 5;

const originBusy = () =>
  apiError(503, `Too many files are being read from storage; retry in ${ORIGIN_RETRY_AFTER_SECONDS} seconds.`, {
    reason: 'asset_origin_busy',
    headers: { 'Retry-After': String(ORIGIN_RETRY_AFTER_SECONDS) },
  });

/** An origin's failure as a response; the details (the origin's answer, its host) are logged, not sent. */
const originRefused = (file: StoredFile, problem: OriginProblem) => {
  strapi.log.warn(`[public-api] asset ${file.documentId} could not be read from its ${file.provider} storage: ${problem.message}`);
  switch (problem.reason) {
    case 'asset_origin_timeout':
      return apiError(504, `The file storage did not answer in time; retry in ${ORIGIN_RETRY_AFTER_SECONDS} seconds.`, {
        reason: 'asset_origin_timeout',
        headers: { 'Retry-After': String(ORIGIN_RETRY_AFTER_SECONDS) },
      });
    case 'asset_too_large':
      return apiError(502, 'This file is larger than this server relays from its storage.', { reason: 'asset_too_large' });
    default:
      return apiError(502, 'The file could not be read from its storage.', { reason: 'asset_origin_failed' });
  }
};

/** Where a remote file's origin is, signed when the provider asks for it; a provider's failure is a 502. */
const originUrlOf = async (file: StoredFile): Promise<string> => {
  try {
    return await getService('assets').originUrl(file);
  } catch (error) {
    strapi.log.warn(`[public-api] asset ${file.documentId}: the ${file.provider} provider gave no URL: ${(error as Error).message}`);
    throw apiError(502, 'The file could not be read from its storage.', { reason: 'asset_origin_failed' });
  }
};

const originLimits = (maxBytes: number, deadline?: number): OriginLimits => ({
  timeoutMs: pluginConfig(strapi).assetOriginTimeoutMs,
  maxBytes,
  ...(deadline === undefined ? {} : { deadline }),
});

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
 * the transform queue (fair between client classes: an IPv4 address, an IPv6 /64; bounded; each class
 * within its share of cost; cheap transforms have a lane of their own), then runs in a transform
 * process. At the configured time limit, waiting included, the process is killed (its CPU and the turn
 * are free at once) and the client is answered 503.
 */
/** `client` is the request's client class (http/client-address.ts: an IPv4 address, an IPv6 /64). */
const queuedTransform = async (client: string, source: TransformSource, asked: TransformQuery) => {
  const limitMs = pluginConfig(strapi).transformTimeoutMs;
  const started = Date.now();
  const assets = getService('assets');
  const plan = await planTransform(source, asked, assets.sourceHeaders());
  const admission = await assets.transforms().enter(client, isCheapTransform(plan.cost) ? 'cheap' : 'heavy', plan.cost);
  if (admission.kind === 'refused') throw transformsBusy();
  if (admission.kind === 'timed_out') throw transformTimedOut();
  try {
    const remainingMs = limitMs - (Date.now() - started);
    // Admitted at its very limit: not worth a process.
    if (remainingMs <= 0) throw transformTimedOut();
    return await runTransform(assets.transformPool(), plan, remainingMs);
  } finally {
    admission.release();
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
  if (noneMatchHits(headerValue(request.headers, 'if-none-match'), etag)) return { kind: 'empty', status: 304, headers: caching };
  const range = headerValue(request.headers, 'range');
  const ifRange = headerValue(request.headers, 'if-range');
  // A range is worth asking an origin for only when it will be answered (If-Range: our tag, or none).
  const hint = ifRange === undefined || ifRange.trim() === etag ? forwardableRange(range) : null;
  let opened = await representation.open(hint);
  if (!opened) throw onMissing();
  let decision = decideRange(range, ifRange, opened.bytes.size, etag);
  const wanted = decision.kind === 'partial' ? decision.range : decision.kind === 'full' ? null : undefined;
  if (wanted !== undefined && opened.bytes.covers && !opened.bytes.covers(wanted)) {
    // The origin sent other bytes than those the answer needs (it read the range otherwise): ask for the whole.
    await opened.bytes.release();
    opened = await representation.open(null);
    if (!opened) throw onMissing();
    decision = decideRange(range, ifRange, opened.bytes.size, etag);
  }
  const { bytes } = opened;
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
      kind: 'file',
      status: 206,
      headers: { ...headers, 'Content-Range': contentRange(range, bytes.size), 'Content-Length': String(range.end - range.start + 1) },
      content: bytes.read(range),
    };
  }
  return { kind: 'file', status: 200, headers: { ...headers, 'Content-Length': String(bytes.size) }, content: bytes.read(null) };
};

// The content identity changes whenever the bytes do (a replaced file gets a new version), so it tags them.
const originalTag = (file: StoredFile) =>
  `"${digest(`original:${contentIdentity(file)}`)
    .toString('base64url')
    .slice(0, 32)}"`;

const original = (file: StoredFile, filePath: string): Representation => ({
  etag: originalTag(file),
  open: async () => {
    const bytes = await openFileBytes(filePath);
    return bytes && { bytes, headers: deliveryHeaders(file.mime) };
  },
});

/** Bytes that name a size and nothing else: an origin's 416 (`Content-Range: bytes *\/size`). */
const sizeOnly = (size: number, release: () => void): Bytes => ({
  size,
  covers: () => false,
  read: () => {
    throw new Error('No bytes were received.');
  },
  release: async () => release(),
});

/** A remote file's original: the same tag as a local one; its bytes (or the range asked) relayed from its origin. */
const remoteOriginal = (file: StoredFile): Representation => ({
  etag: originalTag(file),
  open: async (range) => {
    const release = getService('assets').originTurn();
    if (!release) throw originBusy();
    try {
      const answer = await fetchOrigin(await originUrlOf(file), range, originLimits(pluginConfig(strapi).assetOriginMaxBytes));
      if (answer.kind === 'missing') {
        release();
        return null;
      }
      if (answer.kind === 'unsatisfiable') return { bytes: sizeOnly(answer.size, release), headers: deliveryHeaders(file.mime) };
      // The turn is held until the body is read through, cut short, or released unread.
      answer.body.once('close', release);
      answer.body.once('error', (error) => {
        strapi.log.warn(`[public-api] asset ${file.documentId}: reading from its ${file.provider} storage failed midway: ${error.message}`);
      });
      return { bytes: streamedBytes(answer), headers: deliveryHeaders(file.mime) };
    } catch (error) {
      release();
      throw isOriginProblem(error) ? originRefused(file, error) : error;
    }
  },
});

/**
 * A temporary copy of a remote original, for a transform (null: the origin has no such object). The
 * download counts as a read from the origin (a turn), and must end within the transform's time limit.
 */
const remoteSource = async (file: StoredFile) => {
  const assets = getService('assets');
  const config = pluginConfig(strapi);
  try {
    return await assets.originSources().acquire({
      identity: contentIdentity(file),
      url: () => originUrlOf(file),
      limits: originLimits(config.transformSourceMaxBytes, Date.now() + config.transformTimeoutMs),
      turn: () => {
        const release = assets.originTurn();
        if (!release) throw originBusy();
        return release;
      },
    });
  } catch (error) {
    if (!isOriginProblem(error)) throw error;
    if (error.reason === 'asset_too_large') {
      throw apiError(
        422,
        `This image is larger than the ${config.transformSourceMaxBytes} bytes transformed from storage; request the original without parameters.`,
        { reason: 'image_too_large' },
      );
    }
    throw originRefused(file, error);
  }
};

/** Where a variant's source is: a local file, or a remote file copied for the time of its transform. */
type VariantSource = { kind: 'local'; path: string } | { kind: 'remote' };

/** A transformed image: computed on first request, then served from the variant cache. */
const variant = (client: string, file: StoredFile, source: VariantSource, asked: TransformQuery, parameter: string): Representation => {
  // Keyed by what was asked, not by its resolved form: a cached variant is found without reading the source.
  const key = digest(JSON.stringify([VARIANT_VERSION, ENGINE, contentIdentity(file), asked])).toString('hex');
  const identity = contentIdentity(file);
  const produce = async () => {
    if (source.kind === 'local') return queuedTransform(client, { path: source.path, identity }, asked);
    const copy = await remoteSource(file);
    if (!copy) throw new TransformProblem('asset_content_missing', `The object of ${file.url} is missing.`);
    try {
      return await queuedTransform(client, { path: copy.path, identity }, asked);
    } finally {
      copy.release();
    }
  };
  return {
    etag: `"${key.slice(0, 40)}"`,
    open: async () => {
      try {
        const found = await getService('assets').variants().get(key, produce);
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
  const remote = assets.isRemote(file);
  const filePath = remote ? null : assets.pathOf(file);
  if (asked === null) {
    if (remote) return answer(request, remoteOriginal(file), () => contentMissing(file));
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
  if (remote) return answer(request, variant(request.client, file, { kind: 'remote' }, normalized, parameter), () => contentMissing(file));
  if (!filePath) throw contentMissing(file);
  return answer(request, variant(request.client, file, { kind: 'local', path: filePath }, normalized, parameter), () =>
    contentMissing(file),
  );
};
