/**
 * Records kept, with their JSON, by everything they are made of (issue 16). Pure.
 *
 * A record object is a function of its row's values, the references, files and component items it
 * shows, the projection it is cut to and where its URLs point (the request's base URL, the asset key). A
 * read writes each of its records from those again on every request: for a page of 100 that was about a
 * quarter of the page's CPU, building the objects and then their JSON. The same records are read again
 * and again, so the serializer keeps each record under the text of its inputs (`encodeInput`) and a read
 * that finds the very same inputs takes the record it made before, and the JSON bytes written for it then.
 *
 * Nothing is keyed by a version or a time: a record changed in any way (by Strapi, by a hand-written SQL
 * statement, a target renamed, a file replaced, a component edited) has other inputs, so it is made
 * afresh; a kept record whose inputs no read asks for again is simply forgotten. So there is nothing to
 * invalidate, and instances need not agree on anything. What a record shows that is not among its inputs
 * keeps it from being kept at all (the serializer decides): records expanded by `include`, and richtext
 * images, which point at their files as they are now.
 *
 * The cache is bounded by the length of the inputs it holds (about the length of the records' JSON: the
 * objects and the JSON bytes kept with them take a few times that) and by a number of records, and
 * forgets the least recently used first, approximately (CLOCK, as the richtext cache). Kept records are
 * shared by the requests that read them: nothing changes a record object after it is made.
 */

/**
 * One input value as the cache compares it: strings, numbers, booleans, null and undefined as they are,
 * a date as its time, anything else (PostgreSQL's parsed JSON, a list of file rows, component items) as
 * its JSON. Two inputs are the same when these are `===`.
 */
export const inputValue = (value: unknown): unknown => {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return value.getTime();
  return JSON.stringify(value);
};

/** The bytes of the records the cache keeps, once written (null: kept, not written yet). */
const keptBytes = new WeakMap<object, Buffer | null>();

/**
 * The UTF-8 JSON of `record` when it is a kept record, writing it the first time (its bytes are then kept
 * with it); null for any other value, which the caller writes itself.
 */
export const keptRecordBytes = (record: unknown): Buffer | null => {
  if (typeof record !== 'object' || record === null) return null;
  const kept = keptBytes.get(record);
  if (kept !== null) return kept ?? null;
  // Memory of its own, not a slice of Node's shared 8 KB pool (Buffer.from): a kept slice would hold its
  // whole slab, 8 KB for a record of 1 KB, for as long as the record is kept.
  const text = JSON.stringify(record);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  keptBytes.set(record, bytes);
  return bytes;
};

/**
 * Whether `record` is a kept record whose bytes are written already: taking them costs a copy, not a write
 * (serialize/document-bytes.ts counts only what is written now against its turn of the event loop).
 */
export const recordBytesWritten = (record: unknown): boolean =>
  typeof record === 'object' && record !== null && keptBytes.get(record) instanceof Buffer;

type Entry = { inputs: readonly unknown[]; record: object; weight: number; used: boolean; partition: string; rowId: number };

/** The records of one projection, base URL and asset key (a partition), by row id. */
export type RecordPartition<R extends object> = {
  /** The record kept for the row when it was made of these very inputs (each `===`), if any. */
  get: (rowId: number, inputs: readonly unknown[]) => R | undefined;
  /** Keeps `record`, made of `inputs` (a list the caller no longer changes), for the row. */
  keep: (rowId: number, inputs: readonly unknown[], record: R) => void;
};

export type RecordTextCache = {
  /** The partition named `name`: what a record shows besides its inputs (projection, base URL, asset key). */
  partition: <R extends object>(name: string) => RecordPartition<R>;
  /** What the cache holds: records, the characters of their inputs, partitions with a record. */
  stats: () => { records: number; chars: number; partitions: number };
};

export const DEFAULT_RECORD_CACHE_ENTRIES = 100_000;

/** What an entry weighs against the bound: the characters of its string inputs, 8 for any other. */
const weightOf = (inputs: readonly unknown[]): number => {
  let weight = 0;
  for (const input of inputs) weight += typeof input === 'string' ? input.length : 8;
  return weight;
};

const sameInputs = (a: readonly unknown[], b: readonly unknown[]): boolean => {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false;
  return true;
};

/** A cache of records bounded by the characters of their inputs and by a number of records. */
export const createRecordTextCache = (maxChars: number, maxEntries = DEFAULT_RECORD_CACHE_ENTRIES): RecordTextCache => {
  // The entries by partition and row; a partition is there while it holds an entry, so their number is
  // bounded by the entries'.
  const partitions = new Map<string, Map<number, Entry>>();
  // Every entry, least recently kept first (CLOCK: a hit marks its entry, eviction gives it a second chance).
  const order = new Set<Entry>();
  let weight = 0;

  const drop = (entry: Entry) => {
    order.delete(entry);
    weight -= entry.weight;
    const rows = partitions.get(entry.partition);
    if (rows?.get(entry.rowId) !== entry) return;
    rows.delete(entry.rowId);
    if (rows.size === 0) partitions.delete(entry.partition);
  };

  const evict = () => {
    for (const entry of order) {
      if (weight <= maxChars && order.size <= maxEntries) return;
      if (entry.used) {
        // A second chance: to the back, unmarked. Each entry is moved at most once per pass.
        entry.used = false;
        order.delete(entry);
        order.add(entry);
      } else drop(entry);
    }
  };

  return {
    stats: () => ({ records: order.size, chars: weight, partitions: partitions.size }),
    partition: <R extends object>(name: string): RecordPartition<R> => ({
      get: (rowId, inputs) => {
        const entry = partitions.get(name)?.get(rowId);
        if (!entry || !sameInputs(entry.inputs, inputs)) return undefined;
        entry.used = true;
        // A partition's entries are all of the type it is asked for: its name names the projection.
        return entry.record as R;
      },
      keep: (rowId, inputs, record) => {
        const entryWeight = weightOf(inputs);
        // A record larger than a tenth of the bound would push out many others for one.
        if (entryWeight > maxChars / 10) return;
        const previous = partitions.get(name)?.get(rowId);
        if (previous) drop(previous);
        let rows = partitions.get(name);
        if (!rows) partitions.set(name, (rows = new Map()));
        const entry: Entry = { inputs, record, weight: entryWeight, used: false, partition: name, rowId };
        rows.set(rowId, entry);
        order.add(entry);
        keptBytes.set(record, null);
        weight += entryWeight;
        evict();
      },
    }),
  };
};

/** Numbers for objects, to name them in partition names: resources, asset keys. */
const ids = new WeakMap<object, number>();
let lastId = 0;

export const objectId = (object: object): number => {
  let id = ids.get(object);
  if (id === undefined) ids.set(object, (id = ++lastId));
  return id;
};
