/**
 * A single record's document, and a page when it is small, written as JSON bytes in the handler (issue 16).
 * The response serializer (http/json-chunks.ts) walks a document to find parts small enough for one
 * `JSON.stringify`, counting every value of every record to decide; for a 100-record page that walk costs
 * about as much again as writing the page. A page whose records add up to little text, and a single record,
 * are written here instead, record by record from their kept bytes (serialize/record-texts.ts), with the
 * same bytes `JSON.stringify(document)` gives, encoded as UTF-8. Pure.
 *
 * Each record's text is encoded on its own and the bytes are joined, never the texts: a page's text as
 * one string is a string of 85-330 KB, two bytes a character as soon as one record holds a character past
 * Latin-1 (an en dash will do). V8 keeps a string that large in its own memory pages, mapped and unmapped
 * again for each, and encodes a two-byte string slowly: joining and encoding such a page took 18% of its
 * request's CPU and over 2 ms of 100 records (perf, and a micro-benchmark on this machine: 2.2 ms against
 * 0.17 ms for the records encoded one by one and their bytes joined).
 *
 * The records are written one at a time, each at once (as the chunked serializer writes any record of up
 * to 2,000 values), and the writing stops as soon as their text passes `budget` characters: the caller then
 * hands the document over as objects, to be written in chunks with turns of the event loop between them
 * (contract section 13). So this step holds the thread for at most the budget plus one record's text.
 */

import { keptRecordBytes } from './record-texts';

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

/**
 * The UTF-8 JSON of `document`, whose last member is `data` (an array), or null when the text of `data`'s
 * items passes `budget` characters. Callers pass plain records: a record carrying `include` expansions
 * could hold far more text than its own values.
 */
export const documentBytes = <D extends { data: readonly unknown[] }>(document: D, budget: number): Buffer | null => {
  const parts: Buffer[] = [];
  let spent = 0;
  let length = 0;
  const add = (bytes: Buffer) => {
    parts.push(bytes);
    length += bytes.length;
  };
  add(headBytes(document));
  add(OPEN_LIST);
  for (let index = 0; index < document.data.length; index += 1) {
    // A record kept by its inputs brings its bytes (serialize/record-texts.ts): written once, not per read.
    const kept = keptRecordBytes(document.data[index]);
    if (kept) {
      spent += kept.length + 1;
      if (spent > budget) return null;
      if (index > 0) add(COMMA);
      add(kept);
      continue;
    }
    // An item JSON.stringify leaves out (undefined, a function) is `null` inside an array.
    const text = (JSON.stringify(document.data[index]) as string | undefined) ?? 'null';
    spent += text.length + 1;
    if (spent > budget) return null;
    if (index > 0) add(COMMA);
    add(Buffer.from(text));
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
