/**
 * Text a database can store (issue 13, defect 7). PostgreSQL refuses NUL (U+0000) in text and in JSON,
 * where SQLite keeps it, so the same request failed on one database only. Half of a UTF-16 surrogate
 * pair has no UTF-8 form at all: drivers replace it silently (SQLite, PostgreSQL text) or PostgreSQL's
 * JSON refuses its escape. Input holding either is refused where it enters the API, on every database,
 * and never reaches a query. Pure.
 */

/** A surrogate without its partner: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const isStorableText = (text: string): boolean => !text.includes('\u0000') && !LONE_SURROGATE.test(text);

/** What callers are told, wherever the text was. */
export const UNSTORABLE_TEXT = 'NUL (U+0000) or half of a UTF-16 surrogate pair';

/**
 * Where a JSON value holds text that cannot be stored: the path (member names and indexes) of each such
 * string, and of each object whose member name is such a string, at most `limit` of them, in document order.
 */
export const unstorablePaths = (value: unknown, limit: number): (string | number)[][] => {
  const found: (string | number)[][] = [];
  const visit = (node: unknown, path: (string | number)[]): void => {
    if (found.length >= limit) return;
    if (typeof node === 'string') {
      if (!isStorableText(node)) found.push(path);
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, index]));
    } else if (node !== null && typeof node === 'object') {
      for (const [name, item] of Object.entries(node)) {
        if (!isStorableText(name)) {
          if (found.length < limit) found.push([...path, name]);
        } else {
          visit(item, [...path, name]);
        }
      }
    }
  };
  visit(value, []);
  return found;
};
