/**
 * multipart/form-data bodies (commands that take files): read within limits, files written to a
 * directory the caller owns and removes.
 *
 * Limits: each file at most its rule's size (413, `file_too_large`); the other parts together at most
 * 1 MiB (413); the whole body at most the files' sizes plus 1 MiB and some room for part headers (413).
 * A body that is not well-formed multipart is 400.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import formidable from 'formidable';
import { MAX_BODY_BYTES, type BodyMeter } from './body';
import { apiError, isApiError, type ReasonOf } from './errors';
import { headerValue } from './headers';
import { parseMediaRanges } from './media-types';
import type { ApiRequest } from './request';

export const MULTIPART_MEDIA_TYPE = 'multipart/form-data';

/** Room for part headers and boundaries. */
const FRAMING_BYTES = 64 * 1024;
/** More parts than any command reads; their names are judged by the command. */
const MAX_PARTS = 20;

export type ReceivedPart = { path: string; size: number; sha256: string; declaredName: string | null };

export type MultipartBody = {
  fields: Record<string, string[]>;
  files: Record<string, ReceivedPart[]>;
};

export const isMultipart = (request: ApiRequest): boolean =>
  parseMediaRanges(headerValue(request.headers, 'content-type') ?? '')[0]?.type === MULTIPART_MEDIA_TYPE;

const FORMIDABLE_TOO_LARGE: Record<number, { reason: ReasonOf<413>; detail: (maxFileBytes: number) => string }> = {
  1009: { reason: 'file_too_large', detail: (max) => `A file may be at most ${max} bytes (${max / 1024 / 1024} MiB).` },
  1016: { reason: 'file_too_large', detail: (max) => `A file may be at most ${max} bytes (${max / 1024 / 1024} MiB).` },
  1006: { reason: 'body_too_large', detail: () => `The form fields together may be at most ${MAX_BODY_BYTES} bytes (1 MiB).` },
  1007: { reason: 'body_too_large', detail: () => `A form may have at most ${MAX_PARTS} fields.` },
  1015: { reason: 'body_too_large', detail: () => `A form may have at most ${MAX_PARTS} files.` },
};

/** The file's digest, read as a stream: a 10 MiB CV is not held in memory a second time. */
const sha256Of = async (path: string): Promise<string> => {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
};

/** The most bytes a multipart body whose files are each at most `maxFileBytes` may have. */
export const multipartBodyLimit = (maxFileBytes: number): number => maxFileBytes + MAX_BODY_BYTES + FRAMING_BYTES;

/**
 * Reads the body as multipart/form-data, parsing it as it arrives: each chunk goes to the parser, and a
 * file's bytes to its file in `directory` (a private one, removed by the caller: a refused or broken body
 * may leave a part there half written), so no more of the body than a chunk or two is ever in memory.
 * `maxFileBytes` bounds each file. `meter` hears the body's size before each chunk is parsed or written
 * (http/body.ts `BodyMeter`): its refusal stops the body there, with its error.
 */
export const readMultipartBody = async (
  request: ApiRequest,
  options: { directory: string; maxFileBytes: number; meter?: BodyMeter },
): Promise<MultipartBody> => {
  const stream = request.streamBody(multipartBodyLimit(options.maxFileBytes), 'multipart', options.meter);
  const form = formidable({
    uploadDir: options.directory,
    maxFileSize: options.maxFileBytes,
    maxTotalFileSize: options.maxFileBytes * MAX_PARTS,
    maxFiles: MAX_PARTS,
    maxFields: MAX_PARTS,
    maxFieldsSize: MAX_BODY_BYTES,
    allowEmptyFiles: true,
    minFileSize: 0,
  });
  let fields: formidable.Fields;
  let files: formidable.Files;
  try {
    [fields, files] = await form.parse(stream as never);
  } catch (error) {
    // Nothing more of the body is read: a refusal (429, 413, 408) ends it here.
    stream.destroy();
    if (isApiError(error)) throw error;
    const code = (error as { code?: number }).code ?? 0;
    const tooLarge = FORMIDABLE_TOO_LARGE[code];
    if (tooLarge) throw apiError(413, tooLarge.detail(options.maxFileBytes), { reason: tooLarge.reason });
    throw apiError(400, 'The request body is not well-formed multipart/form-data.', { reason: 'multipart_malformed' });
  }
  const received: Record<string, ReceivedPart[]> = {};
  for (const [name, list] of Object.entries(files)) {
    received[name] = await Promise.all(
      (list ?? []).map(async (file) => ({
        path: file.filepath,
        size: file.size,
        sha256: await sha256Of(file.filepath),
        declaredName: file.originalFilename ?? null,
      })),
    );
  }
  return { fields: Object.fromEntries(Object.entries(fields).map(([name, values]) => [name, values ?? []])), files: received };
};
