/**
 * The body of a POST or PATCH -> the resource object it carries (contract section 7). Pure.
 *
 *   { "data": { "type": "events", "id"?: "...", "attributes"?: { ... } } }
 *
 * A body that is not such a document is 400 with a pointer. Relations are attributes in this API, so a
 * `relationships` member is refused rather than ignored; `meta` is allowed and ignored (JSON:API lets
 * any object carry it), as are top-level `jsonapi` and `meta`.
 */
import { apiError, apiErrors, errorObject } from '../http/errors';
import { echo } from '../query/problems';
import { MAX_REPORTED_PROBLEMS } from './attributes';
import { pointer } from './pointer';

export type ResourceObject = {
  type: string;
  /** The `id` member, when sent. */
  id: string | null;
  attributes: Record<string, unknown>;
};

const TOP_LEVEL = new Set(['data', 'jsonapi', 'meta']);
const DATA_MEMBERS = new Set(['type', 'id', 'attributes', 'meta']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const notADocument = (detail: string, at: string) => apiError(400, detail, { source: { pointer: at }, reason: 'document_invalid' });

export const parseResourceDocument = (body: unknown): ResourceObject => {
  if (!isObject(body)) throw notADocument('The body must be a JSON:API document: an object with a `data` member.', '');
  for (const member of Object.keys(body)) {
    if (!TOP_LEVEL.has(member)) {
      throw notADocument(`The top-level member ${echo(member)} is not accepted here; send \`data\`.`, pointer(member));
    }
  }
  const data = body.data;
  if (!isObject(data)) throw notADocument('`data` must be one resource object.', pointer('data'));
  const problems = [];
  for (const member of Object.keys(data)) {
    // As every refusal, the first problems only: 1 MiB of stray members would otherwise answer an error each.
    if (problems.length >= MAX_REPORTED_PROBLEMS) break;
    if (DATA_MEMBERS.has(member)) continue;
    const detail =
      member === 'relationships'
        ? 'Relations are written as attributes in this API: move them into `attributes`.'
        : `The member ${echo(member)} is not part of a resource object here; use type, id and attributes.`;
    problems.push(errorObject(400, detail, { source: { pointer: pointer('data', member) }, reason: 'document_invalid' }));
  }
  if (typeof data.type !== 'string' || data.type === '') {
    problems.push(
      errorObject(400, '`data.type` must be the resource slug, as a string.', {
        source: { pointer: pointer('data', 'type') },
        reason: 'document_invalid',
      }),
    );
  }
  if (data.id !== undefined && (typeof data.id !== 'string' || data.id === '')) {
    problems.push(
      errorObject(400, '`data.id` must be a string when present.', {
        source: { pointer: pointer('data', 'id') },
        reason: 'document_invalid',
      }),
    );
  }
  if (data.attributes !== undefined && !isObject(data.attributes)) {
    problems.push(
      errorObject(400, '`data.attributes` must be an object.', {
        source: { pointer: pointer('data', 'attributes') },
        reason: 'document_invalid',
      }),
    );
  }
  if (problems.length) throw apiErrors(400, problems.slice(0, MAX_REPORTED_PROBLEMS));
  return {
    type: data.type as string,
    id: (data.id as string | undefined) ?? null,
    attributes: (data.attributes as Record<string, unknown> | undefined) ?? {},
  };
};

/**
 * `type` names the resource of the path and `id` the record of the path (PATCH): 409 otherwise. A new
 * record cannot bring its own id (POST): 403, as JSON:API answers a client-generated id a server does
 * not support.
 */
export const assertDocumentTarget = (object: ResourceObject, expected: { type: string; id: string | null }): void => {
  if (object.type !== expected.type) {
    throw apiError(409, `\`data.type\` is ${echo(object.type)}, but this path writes '${expected.type}' records.`, {
      source: { pointer: pointer('data', 'type') },
      reason: 'type_mismatch',
    });
  }
  if (object.id === null) return;
  if (expected.id === null) {
    throw apiError(403, 'Records get their id from the server; leave `data.id` out when creating one.', {
      source: { pointer: pointer('data', 'id') },
      reason: 'client_id_not_supported',
    });
  }
  if (object.id !== expected.id) {
    throw apiError(409, `\`data.id\` is ${echo(object.id)}, but the record at this path is '${expected.id}'.`, {
      source: { pointer: pointer('data', 'id') },
      reason: 'id_mismatch',
    });
  }
};
