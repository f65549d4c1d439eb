/**
 * Values of a write or a command that no database can store (values/storable-text.ts) -> one 422 per value,
 * pointing at it in the request document. Judged before anything is planned or looked up, so that such
 * text reaches no query: not a write, not a lookup of a relation target, not a command's check. Pure.
 */
import { errorObject, type ErrorObject } from '../http/errors';
import { UNSTORABLE_TEXT, unstorablePaths } from '../values/storable-text';
import { attributePointer } from './pointer';

/** Every problem of an attribute value (or of all attributes), at most `limit`. */
export const unstorableProblems = (value: unknown, path: (string | number)[], limit: number): ErrorObject[] =>
  unstorablePaths(value, limit).map((inner) => {
    const [field, ...rest] = [...path, ...inner];
    return errorObject(422, `This value holds text no database stores: ${UNSTORABLE_TEXT}.`, {
      source: { pointer: field === undefined ? '/data/attributes' : attributePointer(String(field), ...rest) },
      reason: 'unstorable_text',
    });
  });
