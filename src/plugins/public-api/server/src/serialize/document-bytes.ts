/**
 * A page written as JSON bytes in the handler, when it is small (issue 16). The response serializer
 * (http/json-chunks.ts) walks a document to find parts small enough for one `JSON.stringify`, counting
 * every value of every record to decide; for a 100-record page that walk costs about as much again as
 * writing the page. A page whose records add up to little text is written here instead, record by record,
 * with the same bytes `JSON.stringify(document)` gives, encoded as UTF-8. Pure.
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

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/**
 * The UTF-8 JSON of `document`, whose last member is `data` (an array), or null when the text of `data`'s
 * items passes `budget` characters. Callers pass plain records: a record carrying `include` expansions
 * could hold far more text than its own values.
 */
export const documentBytes = <D extends { data: readonly unknown[] }>(document: D, budget: number): Buffer | null => {
  const keys = Object.keys(document);
  if (keys.at(-1) !== 'data') throw new Error('The document must end with its data.');
  const parts: Buffer[] = [];
  let spent = 0;
  let length = 0;
  const add = (bytes: Buffer) => {
    parts.push(bytes);
    length += bytes.length;
  };
  // Everything but `data`, as JSON.stringify writes it: `..."data":[]}` with the items then put in.
  const head = JSON.stringify({ ...document, data: [] });
  add(Buffer.from(head.slice(0, -2)));
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
  add(CLOSE);
  return Buffer.concat(parts, length);
};
