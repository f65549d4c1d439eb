/**
 * The bound on command uploads in flight (contract section 13): at most `maxUploads` bodies at once and
 * at most `maxBytes` of them, each counted at what it may still grow to (its declared length, else the
 * most it may be). A body over the bound is refused before it is read (503 with Retry-After). Pure.
 *
 * A body alone is always let in, so that a bound set below one maximal body still lets uploads through,
 * one at a time.
 */
export type UploadLimits = { maxUploads: number; maxBytes: number };

export type UploadGate = {
  /** Takes room for a body of at most `bytes`: a function that gives it back (once), or null when full. */
  enter: (bytes: number) => (() => void) | null;
  /** What is in flight now. */
  inFlight: () => { uploads: number; bytes: number };
};

export const createUploadGate = (limits: UploadLimits): UploadGate => {
  let uploads = 0;
  let bytes = 0;
  return {
    enter(size) {
      const alone = uploads === 0;
      if (!alone && (uploads + 1 > limits.maxUploads || bytes + size > limits.maxBytes)) return null;
      uploads += 1;
      bytes += size;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        uploads -= 1;
        bytes -= size;
      };
    },
    inFlight: () => ({ uploads, bytes }),
  };
};

/**
 * How many bytes a body may still bring: its declared Content-Length, else (chunked) the limit. Null when
 * it declares more than the limit (the body reader refuses it with 413 before reading).
 */
export const reservedBytes = (contentLength: string | string[] | undefined, limit: number): number | null => {
  const declared = declaredLength(contentLength);
  if (declared === null) return limit;
  return declared <= limit ? declared : null;
};

/** The body's declared Content-Length, or null when it declares none (chunked) or none that is a length. */
export const declaredLength = (contentLength: string | string[] | undefined): number | null => {
  const raw = Array.isArray(contentLength) ? contentLength[0] : contentLength;
  if (raw === undefined || raw.trim() === '') return null;
  const declared = Number(raw);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : null;
};
