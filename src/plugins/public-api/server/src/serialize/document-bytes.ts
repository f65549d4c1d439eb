/**
 * Single record and plain page documents, written as JSON bytes in the handler (issue 16, issue 37).
 * The response serializer (http/json-chunks.ts) walks a document to find parts small enough for one
 * `JSON.stringify`, counting every value of every record to decide, and writes every record again; for a
 * 100-record page that walk costs about as much again as writing the page. A page of plain records (no
 * `include` expansions), and a single record, are written here instead, record by record from their kept
 * bytes (serialize/record-texts.ts), with the same bytes `JSON.stringify(document)` gives, encoded as
 * UTF-8. Pure, but for the turns of the event loop it gives.
 *
 * Each record's text is encoded on its own and the bytes are joined, never the texts: a page's text as
 * one string is a string of 85-330 KB, two bytes a character as soon as one record holds a character past
 * Latin-1 (an en dash will do). V8 keeps a string that large in its own memory pages, mapped and unmapped
 * again for each, and encodes a two-byte string slowly: joining and encoding such a page took 18% of its
 * request's CPU and over 2 ms of 100 records (perf, and a micro-benchmark on this machine: 2.2 ms against
 * 0.17 ms for the records encoded one by one and their bytes joined).
 *
 * Every plain page is written this way, however large (issue 37). Until then a page whose records passed
 * a chunk's worth of text (256 KiB) was handed to the chunked serializer as objects, which wrote each kept
 * record again and counted its values: a 100-record page of the demo events (286,108 characters) ran at
 * 198-218 req/s where the same page cut to 90 records (258,259) ran at 340-500. What contract section 13
 * asks, that one large document does not hold the thread while other requests wait, is kept by what it
 * costs to write, not by its size: a kept record's bytes are only copied, and the text of records written
 * now (not kept, or kept but not yet written) gives the event loop a turn after every `budget` characters.
 * So this step holds the thread for at most the budget plus one record's text, and what it holds in memory
 * is the page's bytes, as the chunked serializer's chunks were (a page has at most 100 records).
 */

import { keptRecordBytes, recordBytesWritten } from './record-texts';

const OPEN_LIST = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_PAGE = Buffer.from(']}');
const CLOSE_RECORD = Buffer.from('}');

/**
 * The JSON of field lists (`meta.fields`), kept by the list. A projection's list is made once, with the
 * projection, and never changed after (a sparse fieldset makes a list of its own per request, which is then
 * simply not found again). The list is most of a single record's document: 3 of its 4 KB on the bench events,
 * and 12 us of the 18 us JSON.stringify took for the whole document here.
 */
const fieldListTexts = new WeakMap<object, string>();

const fieldListText = (fields: object): string => {
  let text = fieldListTexts.get(fields);
  if (text === undefined) {
    text = JSON.stringify(fields);
    fieldListTexts.set(fields, text);
  }
  return text;
};

/**
 * The members of `object` up to `last` (left out), as JSON.stringify writes them between braces: members
 * whose value it leaves out (undefined) are left out, `meta.fields` is the kept text of its list.
 */
const membersText = (object: Record<string, unknown>, last: string | null, inMeta: boolean): string => {
  let text = '';
  for (const key of Object.keys(object)) {
    if (key === last) break;
    const value = object[key];
    const member =
      key === 'meta' && !inMeta && typeof value === 'object' && value !== null && !Array.isArray(value)
        ? `{${membersText(value as Record<string, unknown>, null, true)}}`
        : inMeta && key === 'fields' && Array.isArray(value)
          ? fieldListText(value)
          : (JSON.stringify(value) as string | undefined);
    if (member === undefined) continue;
    text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${member}`;
  }
  return text;
};

/** `{...members before data...,"data":` */
const headBytes = (document: Record<string, unknown>): Buffer => {
  if (Object.keys(document).at(-1) !== 'data') throw new Error('The document must end with its data.');
  const members = membersText(document, 'data', false);
  return Buffer.from(`{${members}${members === '' ? '' : ','}"data":`);
};

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The UTF-8 JSON of `document`, whose last member is `data` (an array), with a turn of the event loop
 * after every `budget` characters of records written now (kept records' bytes written before are copied,
 * and count nothing). Callers pass plain records: a record carrying `include` expansions could hold far
 * more text than its own values.
 */
export const documentBytes = async <D extends { data: readonly unknown[] }>(document: D, budget: number): Promise<Buffer> => {
  const parts: Buffer[] = [];
  let length = 0;
  const add = (bytes: Buffer) => {
    parts.push(bytes);
    length += bytes.length;
  };
  add(headBytes(document));
  add(OPEN_LIST);
  // Characters written since the last turn of the event loop.
  let written = 0;
  for (let index = 0; index < document.data.length; index += 1) {
    if (index > 0) add(COMMA);
    const item = document.data[index];
    // A record kept by its inputs brings its bytes (serialize/record-texts.ts): written once, not per read.
    const wasWritten = recordBytesWritten(item);
    const kept = keptRecordBytes(item);
    if (kept) {
      add(kept);
      if (!wasWritten) written += kept.length;
    } else {
      // An item JSON.stringify leaves out (undefined, a function) is `null` inside an array.
      const text = (JSON.stringify(item) as string | undefined) ?? 'null';
      add(Buffer.from(text));
      written += text.length;
    }
    if (written > budget && index < document.data.length - 1) {
      written = 0;
      await yieldToLoop();
    }
  }
  add(CLOSE_PAGE);
  return Buffer.concat(parts, length);
};

/**
 * The UTF-8 JSON of a single record's document, whose last member is `data` (one plain record): the same
 * bytes as JSON.stringify's, from the record's kept bytes (when it is kept) and the kept text of its fields.
 */
export const recordDocumentBytes = <D extends { data: object }>(document: D): Buffer => {
  const head = headBytes(document);
  const record = keptRecordBytes(document.data) ?? Buffer.from(JSON.stringify(document.data));
  return Buffer.concat([head, record, CLOSE_RECORD], head.length + record.length + 1);
};
