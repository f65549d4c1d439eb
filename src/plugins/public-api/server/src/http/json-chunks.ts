/**
 * JSON serialization that gives the event loop back (contract section 13: one client's large document
 * must not stall everyone else's requests). `JSON.stringify` of a 42 MB include document holds the one
 * thread for about 400 ms, and writing the string to the socket another 150 ms converting it to bytes;
 * every other request waits meanwhile. Here the document is walked with an explicit stack and written
 * as UTF-8 chunks of about `chunkBytes`, with a turn of the event loop between chunks; any part of the
 * document of at most `nativeNodes` values is handed to `JSON.stringify` whole, so an ordinary page
 * costs about what `JSON.stringify` costs. The bytes are exactly `JSON.stringify(value)`'s (values
 * without a JSON form are left out of objects and null in arrays, `toJSON` applies).
 *
 * Which parts are small enough is learnt by counting values, and each value is counted about once: a
 * count goes to the end of a part of up to `sizingNodes` values and remembers the exact size of every
 * container in it larger than `nativeNodes`, so once a part is counted whole, its children are known
 * (remembered: opened; not: small) without counting again. Counting only up to `nativeNodes` at every
 * level instead counted the 42 MB document's 2.1 million values 6.2 million times (bench:abuse (a): 17%
 * of the CPU). A count stopped at `sizingNodes` is what is counted twice, at most that many values for
 * each of the few parts larger than it; `sizingNodes` bounds how long one count holds the thread.
 */
export type ChunkOptions = { chunkBytes: number; nativeNodes: number; sizingNodes: number };

/**
 * A native part of 24,000 values is about 450 KB, a few milliseconds, about as long as one chunk takes:
 * a 100-record page (about 16,000 values, 270 KB) is one `JSON.stringify`. One count of 64,000 values
 * takes about a millisecond.
 */
export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { chunkBytes: 256 * 1024, nativeNodes: 24_000, sizingNodes: 64_000 };

type Frame =
  | { kind: 'array'; items: readonly unknown[]; at: number; sized: boolean }
  | { kind: 'object'; value: Record<string, unknown>; keys: string[]; at: number; wrote: boolean; sized: boolean };

const withToJson = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function'
    ? (value as { toJSON: (key: string) => unknown }).toJSON(key)
    : value;

/** Values left out of objects (null in arrays), as JSON.stringify does. */
const hasNoJsonForm = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

/**
 * Counts values (an estimate of the work of writing them: `toJSON` is not applied, and an object's
 * inherited enumerable keys count too; what is written does not depend on it).
 */
const createCounter = (nativeNodes: number) => {
  /** Exact sizes of the containers counted whole that have more than `nativeNodes` values. */
  const large = new Map<object, number>();
  /**
   * How many values `value` has (it and all below it), or -1 once more than `cap`. What it remembers is
   * looked up only before a count, not at every container inside one: a lookup per container cost more
   * than the few values it would spare counting again.
   */
  const countAll = (value: object, cap: number): number => {
    let size = 1;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        const child: unknown = value[index];
        const below = isContainer(child) ? countAll(child, cap - size) : 1;
        if (below < 0) return -1;
        size += below;
        if (size > cap) return -1;
      }
    } else {
      // for...in, not Object.values: no array allocated for each of millions of objects.
      for (const key in value) {
        const child = (value as Record<string, unknown>)[key];
        const below = isContainer(child) ? countAll(child, cap - size) : 1;
        if (below < 0) return -1;
        size += below;
        if (size > cap) return -1;
      }
    }
    if (size > nativeNodes) large.set(value, size);
    return size;
  };
  const count = (value: object, cap: number): number => {
    const known = large.get(value);
    if (known !== undefined) return known <= cap ? known : -1;
    return countAll(value, cap);
  };
  return { count, isLarge: (value: object) => large.has(value) };
};

/** The text encoded at once while a chunk is written (see `serializeInChunks`). */
const PIECE_CHARS = 16 * 1024;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `value` as JSON, in UTF-8 chunks, giving the event loop a turn between chunks. */
export const serializeInChunks = async (value: unknown, options: ChunkOptions = DEFAULT_CHUNK_OPTIONS): Promise<Buffer[]> => {
  const chunks: Buffer[] = [];
  let out = '';
  const stack: Frame[] = [];

  const counter = createCounter(options.nativeNodes);

  /**
   * Writes a value that has a JSON form (toJSON already applied): whole, or opens a frame for it.
   * `counted`: the value's parent was counted whole, and `toJSON` did not replace the value, so
   * whether it is large is known without counting it.
   */
  const write = (item: unknown, counted: boolean) => {
    if (!isContainer(item)) {
      out += JSON.stringify(item) ?? 'null';
      return;
    }
    let size: number;
    if (counted) size = counter.isLarge(item) ? -1 : 0;
    else size = counter.count(item, Math.max(options.sizingNodes, options.nativeNodes));
    if (size >= 0 && size <= options.nativeNodes) {
      out += JSON.stringify(item) ?? 'null';
      return;
    }
    // Counted whole (and large): its children's sizes are remembered.
    const sized = size > 0 || counted;
    if (Array.isArray(item)) {
      out += '[';
      stack.push({ kind: 'array', items: item, at: 0, sized });
    } else {
      out += '{';
      stack.push({ kind: 'object', value: item as Record<string, unknown>, keys: Object.keys(item), at: 0, wrote: false, sized });
    }
  };

  const step = () => {
    const frame = stack.at(-1)!;
    if (frame.kind === 'array') {
      if (frame.at === frame.items.length) {
        out += ']';
        stack.pop();
        return;
      }
      const index = frame.at;
      frame.at += 1;
      if (index > 0) out += ',';
      const raw = frame.items[index];
      const item = withToJson(raw, String(index));
      if (hasNoJsonForm(item)) out += 'null';
      else write(item, frame.sized && item === raw);
      return;
    }
    if (frame.at === frame.keys.length) {
      out += '}';
      stack.pop();
      return;
    }
    const key = frame.keys[frame.at]!;
    frame.at += 1;
    const raw = frame.value[key];
    const item = withToJson(raw, key);
    if (hasNoJsonForm(item)) return;
    out += `${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`;
    frame.wrote = true;
    write(item, frame.sized && item === raw);
  };

  const top = withToJson(value, '');
  if (hasNoJsonForm(top)) throw new TypeError('The value has no JSON form.');
  write(top, false);
  // The text is encoded in pieces of about PIECE_CHARS, each chunk the join of its pieces' bytes: a chunk's
  // text as one string would be a string of up to 256 K characters, slow to make and to encode
  // (serialize/document-bytes.ts). A piece ends between two writes, so never inside a character.
  const pieces: Buffer[] = [];
  let written = 0;
  const flush = () => {
    if (out.length === 0) return;
    pieces.push(Buffer.from(out, 'utf8'));
    written += out.length;
    out = '';
  };
  for (;;) {
    while (stack.length > 0 && written + out.length < options.chunkBytes) {
      step();
      if (out.length >= PIECE_CHARS) flush();
    }
    flush();
    if (pieces.length > 0) chunks.push(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces));
    pieces.length = 0;
    written = 0;
    if (stack.length === 0) return chunks;
    await yieldToLoop();
  }
};
