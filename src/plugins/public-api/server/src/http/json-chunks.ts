/**
 * JSON serialization that gives the event loop back (contract section 13: one client's large document
 * must not stall everyone else's requests). `JSON.stringify` of a 42 MB include document holds the one
 * thread for about 400 ms, and writing the string to the socket another 150 ms converting it to bytes;
 * every other request waits meanwhile. Here the document is walked with an explicit stack and written
 * as UTF-8 chunks of about `chunkBytes`, with a turn of the event loop between chunks; any part of the
 * document of at most `nativeNodes` values is handed to `JSON.stringify` whole, so an ordinary page
 * costs about what `JSON.stringify` costs. The bytes are exactly `JSON.stringify(value)`'s (values
 * without a JSON form are left out of objects and null in arrays, `toJSON` applies).
 */
export type ChunkOptions = { chunkBytes: number; nativeNodes: number };

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { chunkBytes: 256 * 1024, nativeNodes: 2_000 };

type Frame =
  | { kind: 'array'; items: readonly unknown[]; at: number }
  | { kind: 'object'; value: Record<string, unknown>; keys: string[]; at: number; wrote: boolean };

const withToJson = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function'
    ? (value as { toJSON: (key: string) => unknown }).toJSON(key)
    : value;

/** Values left out of objects (null in arrays), as JSON.stringify does. */
const hasNoJsonForm = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/** How many of `budget` values remain after counting `value`'s, or -1 once it has more. */
const remainingAfter = (value: unknown, budget: number): number => {
  let left = budget - 1;
  if (left < 0 || value === null || typeof value !== 'object') return left;
  const children = Array.isArray(value) ? value : Object.values(value as object);
  for (const child of children) {
    left = remainingAfter(child, left);
    if (left < 0) return -1;
  }
  return left;
};

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `value` as JSON, in UTF-8 chunks, giving the event loop a turn between chunks. */
export const serializeInChunks = async (value: unknown, options: ChunkOptions = DEFAULT_CHUNK_OPTIONS): Promise<Buffer[]> => {
  const chunks: Buffer[] = [];
  let out = '';
  const stack: Frame[] = [];

  /** Writes a value that has a JSON form (toJSON already applied): whole, or opens a frame for it. */
  const write = (item: unknown) => {
    if (item === null || typeof item !== 'object' || remainingAfter(item, options.nativeNodes) >= 0) {
      out += JSON.stringify(item) ?? 'null';
      return;
    }
    if (Array.isArray(item)) {
      out += '[';
      stack.push({ kind: 'array', items: item, at: 0 });
    } else {
      out += '{';
      stack.push({ kind: 'object', value: item as Record<string, unknown>, keys: Object.keys(item), at: 0, wrote: false });
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
      const item = withToJson(frame.items[index], String(index));
      if (hasNoJsonForm(item)) out += 'null';
      else write(item);
      return;
    }
    if (frame.at === frame.keys.length) {
      out += '}';
      stack.pop();
      return;
    }
    const key = frame.keys[frame.at]!;
    frame.at += 1;
    const item = withToJson(frame.value[key], key);
    if (hasNoJsonForm(item)) return;
    out += `${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`;
    frame.wrote = true;
    write(item);
  };

  const top = withToJson(value, '');
  if (hasNoJsonForm(top)) throw new TypeError('The value has no JSON form.');
  write(top);
  for (;;) {
    while (stack.length > 0 && out.length < options.chunkBytes) step();
    if (out.length > 0) chunks.push(Buffer.from(out, 'utf8'));
    out = '';
    if (stack.length === 0) return chunks;
    await yieldToLoop();
  }
};
