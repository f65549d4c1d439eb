/**
 * A page written as JSON text in the handler, when it is small (issue 16). The response serializer
 * (http/json-chunks.ts) walks a document to find parts small enough for one `JSON.stringify`, counting
 * every value of every record to decide; for a 100-record page that walk costs about as much again as
 * writing the page. A page whose records add up to little text is written here instead, record by record,
 * with the same bytes `JSON.stringify(document)` gives. Pure.
 *
 * The records are written one at a time, each at once (as the chunked serializer writes any record of up
 * to 2,000 values), and the writing stops as soon as their text passes `budget` characters: the caller then
 * hands the document over as objects, to be written in chunks with turns of the event loop between them
 * (contract section 13). So this step holds the thread for at most the budget plus one record's text.
 */

/**
 * The JSON text of `document`, whose last member is `data` (an array), or null when the text of `data`'s
 * items passes `budget` characters. Callers pass plain records: a record carrying `include` expansions
 * could hold far more text than its own values.
 */
export const documentText = <D extends { data: readonly unknown[] }>(document: D, budget: number): string | null => {
  const items: string[] = [];
  let spent = 0;
  for (const item of document.data) {
    const text = JSON.stringify(item);
    spent += text.length + 1;
    if (spent > budget) return null;
    items.push(text);
  }
  const keys = Object.keys(document);
  if (keys.at(-1) !== 'data') throw new Error('The document must end with its data.');
  // Everything but `data`, as JSON.stringify writes it: `..."data":[]}` with the items then put in.
  const head = JSON.stringify({ ...document, data: [] });
  return `${head.slice(0, -2)}${items.join(',')}]}`;
};
