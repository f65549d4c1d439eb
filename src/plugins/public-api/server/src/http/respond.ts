/**
 * How an answer leaves /api/v2 (contract section 14): the handler's response -> status, headers and the
 * bytes to send. Documents are serialized here once, to a Buffer (in chunks that give the event loop
 * turns); then, in order:
 *
 * 1. Cache-Control: a 200 to GET or HEAD with a key is `private, no-cache`, or the key's shared policy
 *    (http/cache-control.ts), with `Vary: Authorization`, unless the handler says `noStore` (a preview
 *    key's draft read); anything else a key gets (errors, writes, commands) is `no-store`, and so is every
 *    error.
 * 2. ETag on every 2xx document: the strong tag of its identity bytes (http/entity-tags.ts), or the one the
 *    handler computed with them (the OpenAPI document is cached with its tag). Cache-Tag and
 *    Surrogate-Key on reads (http/cache-tags.ts).
 * 3. Content coding for bodies of 1 KiB or more (`Vary: Accept-Encoding`; http/compression.ts), with the
 *    coded representation's own tag.
 * 4. If-None-Match on a 200 to GET or HEAD that matches: 304 without a body, with the headers the 200
 *    would have had (ETag, Cache-Control, Vary, Cache-Tag).
 *
 * Files (`kind: 'file'`: assets) are sent as their handler prepared them.
 */
import { Readable } from 'node:stream';
import type { CachePolicy } from '../config/cache-policy';
import { chooseCoding } from './accept-encoding';
import { NOT_STORED, readCacheControl } from './cache-control';
import { cacheTagHeaders } from './cache-tags';
import { COMPRESSION_THRESHOLD_BYTES, compressed } from './compression';
import { codedTag, entityTagOfChunks, noneMatch } from './entity-tags';
import { serializeInChunks } from './json-chunks';
import { JSONAPI_MEDIA_TYPE } from './media-types';
import type { ApiResponse } from './request';

/** What the request says about how it wants the answer, and who asks. */
export type ResponseContext = {
  method: string;
  acceptEncoding: string | undefined;
  ifNoneMatch: string | undefined;
  /** The key's shared-cache policy (null: none); undefined when the request has no key (yet). */
  cachePolicy: CachePolicy | null | undefined;
};

/**
 * What a 304 of a read repeats, for the revalidation memo (services/revalidation.ts): the identity tag,
 * whether the document is content-coded when asked, and the headers and Vary fields besides ETag.
 */
export type RevalidationMemo = { tag: string; compressible: boolean; headers: Record<string, string>; vary: string[] };

export type OutgoingResponse = {
  status: number;
  headers: Record<string, string>;
  /** Field names to add to Vary (to what the CORS layer said already). */
  vary: string[];
  /** The Content-Type of `body` when it is a document; files carry theirs in `headers`. */
  type?: string;
  body: Buffer | Readable | null;
  /** For a 200 or 304 to a keyed read that may be stored (not `no-store`). */
  memo?: RevalidationMemo;
};

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/**
 * The document's media type and identity bytes, as chunks, or null when the response has no body. A
 * document is serialized in chunks with turns of the event loop between them (http/json-chunks.ts), so a
 * large include document does not stall every other request while it is written; the bytes are
 * JSON.stringify's. A small document is one chunk.
 */
const serialized = async (response: ApiResponse): Promise<{ type: string; chunks: Buffer[]; length: number } | null> => {
  switch (response.kind) {
    case 'serialized': {
      const bytes = Buffer.isBuffer(response.bytes) ? response.bytes : Buffer.from(response.bytes);
      return { type: response.type, chunks: [bytes], length: bytes.length };
    }
    case 'document': {
      const chunks = await serializeInChunks(response.document);
      return { type: JSONAPI_MEDIA_TYPE, chunks, length: chunks.reduce((sum, chunk) => sum + chunk.length, 0) };
    }
    // Files leave before (`prepareResponse`).
    case 'empty':
    case 'file':
      return null;
  }
};

/** The bytes of chunks as koa sends them: one Buffer, or a stream of the chunks (not copied into one). */
const bodyOf = (chunks: Buffer[]): Buffer | Readable => (chunks.length === 1 ? chunks[0]! : Readable.from(chunks));

/**
 * Not itself async, and so are its callers up to the handler's (middlewares/api-v2.ts): an async function
 * keeps its parameters and locals alive across every await, so the handler's response, a 1,000-record
 * include's objects, stayed in memory until its bytes had been tagged, compressed and sent. Here only
 * `serialized` holds it, until its bytes exist (issue 34, memory under the deepest include).
 */
export const prepareResponse = (response: ApiResponse, context: ResponseContext): Promise<OutgoingResponse> => {
  const headers: Record<string, string> = {};
  const vary: string[] = [];
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    if (name.toLowerCase() === 'vary') vary.push(...value.split(',').map((field) => field.trim()));
    else headers[name] = value;
  }
  if (response.kind === 'file') return Promise.resolve({ status: response.status, headers, vary, body: response.content });

  const keyed = context.cachePolicy !== undefined;
  const cachedRead = keyed && isRead(context.method) && response.status === 200;
  if (cachedRead) {
    headers['Cache-Control'] = response.noStore ? NOT_STORED : readCacheControl(context.cachePolicy!);
    vary.push('Authorization');
    Object.assign(headers, cacheTagHeaders(response.tags ?? []));
  } else if (keyed || response.status >= 400) {
    headers['Cache-Control'] = NOT_STORED;
  }

  const { status, etag, noStore } = response;
  return encoded(serialized(response), { status, etag, noStore, headers, vary, cachedRead }, context);
};

type Prepared = Pick<ApiResponse, 'status' | 'etag' | 'noStore'> & { headers: Record<string, string>; vary: string[]; cachedRead: boolean };

/** The serialized document tagged, revalidated and content-coded: what `prepareResponse` does once the bytes exist. */
const encoded = async (
  serializing: ReturnType<typeof serialized>,
  { status, etag, noStore, headers, vary, cachedRead }: Prepared,
  context: ResponseContext,
): Promise<OutgoingResponse> => {
  const document = await serializing;
  if (document === null) return { status, headers, vary, body: null };

  const tagged = status >= 200 && status < 300;
  const tag = tagged ? (etag ?? (await entityTagOfChunks(document.chunks))) : null;
  const compressible = document.length >= COMPRESSION_THRESHOLD_BYTES;
  if (compressible) vary.push('Accept-Encoding');
  const coding = compressible ? chooseCoding(context.acceptEncoding) : null;
  const memo = cachedRead && tag !== null && !noStore ? { tag, compressible, headers: { ...headers }, vary: [...vary] } : undefined;
  if (tag !== null) headers.ETag = codedTag(tag, coding);

  if (cachedRead && tag !== null && noneMatch(context.ifNoneMatch, tag)) {
    return { status: 304, headers, vary, body: null, memo };
  }
  if (coding === null) {
    // A stream has no length of its own: Content-Length is the document's.
    if (document.chunks.length > 1) headers['Content-Length'] = String(document.length);
    return { status, headers, vary, type: document.type, body: bodyOf(document.chunks), memo };
  }
  headers['Content-Encoding'] = coding;
  // Untagged bodies (errors) are not kept: their tag would have to be computed for nothing. The chunks are
  // compressed as they are, never joined first (http/compression.ts).
  const body = await compressed(document.chunks, coding, tag === null ? null : headers.ETag!);
  return { status, headers, vary, type: document.type, body, memo };
};
