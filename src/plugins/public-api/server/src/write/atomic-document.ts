/**
 * The body of POST /operations -> the operations it asks for (contract section 17, JSON:API Atomic
 * Operations). Pure.
 *
 *   { "atomic:operations": [
 *       { "op": "add",    "href"?: "/cms/{website}/{collection}", "data": { "type", "lid"?, "attributes" } },
 *       { "op": "update", "ref"?: { "type", "id" | "lid" } | "href"?: "...", "data": { "type", "id"?, "lid"?, "attributes" } },
 *       { "op": "remove", "ref": { "type", "id" | "lid" } | "href": "..." } ] }
 *
 * Which resource an operation writes (docs/api.md, *Atomic operations*): the `href` when present (a path
 * below the API base, as the single write's URL, query `locale` included), else the resource of the record
 * a `lid` names (the operation that added it), else the native resource whose slug is the `type`. A CMS
 * resource's slug is unique only within its website, so a type alone never names one: CMS operations
 * carry an `href` (or a `lid`). The record is named by the href's last segment, `ref.id`/`ref.lid`, or
 * `data.id`/`data.lid`, once; an update that names none changes a singleton.
 *
 * Pointers in the errors here are relative to the operation (`/ref/id`); `operation-errors.ts` puts them
 * under `/atomic:operations/<n>`. A `lid` must be added by an earlier operation before it is named.
 */
import { ApiError, apiError, apiErrors, errorObject, type ErrorObject, type ReasonOf } from '../http/errors';
import { echo } from '../values/echo';
import { pointer } from './pointer';
import { MAX_REPORTED_PROBLEMS } from './attributes';
import { parseResourceDocument, type ResourceObject } from './resource-object';
import { parseHref, type ResourceName } from './operation-href';

/** The most operations one request carries: what one transaction holds stays bounded (contract section 17). */
export const MAX_OPERATIONS = 100;

export const OPERATIONS_MEMBER = 'atomic:operations';
export const RESULTS_MEMBER = 'atomic:results';

export type OperationKind = 'add' | 'update' | 'remove';

export type { ResourceName } from './operation-href';

/** The record an operation writes: by id (or slug, as a path names it), by a local id, or the singleton's one record. */
export type NamedRecord = { by: 'identifier' | 'lid'; value: string; at: string };
export type RecordName = NamedRecord | { by: 'singleton' };

export type AtomicOperation = {
  index: number;
  op: OperationKind;
  resource: ResourceName;
  /** Where the resource was named, relative to the operation (for errors about it). */
  resourceAt: string;
  /** Null for `add`. */
  record: RecordName | null;
  /** The type the operation states (`ref.type` or `data.type`), and where; checked against the resource's slug. */
  types: { value: string; at: string }[];
  /** The query of the href (its `locale`), empty without one. */
  query: URLSearchParams;
  /** The resource object of `add` and `update`, as the single write reads it. */
  data: ResourceObject | null;
  /** The local id an `add` gives its record. */
  lid: string | null;
};

const OPERATION_MEMBERS = new Set(['op', 'ref', 'href', 'data', 'meta']);
const REF_MEMBERS = new Set(['type', 'id', 'lid', 'meta']);
const TOP_LEVEL = new Set([OPERATIONS_MEMBER, 'jsonapi', 'meta']);
const KINDS: readonly OperationKind[] = ['add', 'update', 'remove'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const invalid = (detail: string, at: string, reason: ReasonOf<400> = 'operation_invalid'): ErrorObject =>
  errorObject(400, detail, { source: { pointer: at }, reason });

/** A pointer relative to an operation, moved under it in the request document. */
export const operationPointer = (index: number, relative = ''): string => `${pointer(OPERATIONS_MEMBER, index)}${relative}`;

/** The same errors, their pointers (and, without one, the operation itself) under `/atomic:operations/<n>`. */
export const underOperation = (error: ApiError, index: number): ApiError =>
  new ApiError(
    error.status,
    error.errors.map((object) => {
      const source = object.source;
      if (source && 'header' in source) return object;
      const relative = source && 'pointer' in source ? source.pointer : source && 'parameter' in source ? '/href' : '';
      return { ...object, source: { pointer: operationPointer(index, relative) } };
    }),
    error.headers,
  );

/** The members of a non-empty string, or null with a problem. */
const nonEmptyString = (value: unknown, at: string, what: string, problems: ErrorObject[]): string | null => {
  if (typeof value === 'string' && value !== '') return value;
  problems.push(invalid(`${what} must be a non-empty string.`, at));
  return null;
};

type Ref = { type: string | null; id: string | null; lid: string | null };

const parseRef = (raw: unknown, problems: ErrorObject[]): Ref | null => {
  if (!isObject(raw)) {
    problems.push(invalid('`ref` must be an object: { "type", "id" } or { "type", "lid" }.', '/ref'));
    return null;
  }
  for (const member of Object.keys(raw)) {
    if (problems.length >= MAX_REPORTED_PROBLEMS) break;
    if (REF_MEMBERS.has(member)) continue;
    const detail =
      member === 'relationship'
        ? 'Relations are written as attributes in this API: update the record with the relation in `data.attributes`.'
        : `The member ${echo(member)} is not part of a \`ref\`; use type, and id or lid.`;
    problems.push(invalid(detail, pointer('ref', member)));
  }
  const type = raw.type === undefined ? null : nonEmptyString(raw.type, '/ref/type', '`ref.type`', problems);
  const id = raw.id === undefined ? null : nonEmptyString(raw.id, '/ref/id', '`ref.id`', problems);
  const lid = raw.lid === undefined ? null : nonEmptyString(raw.lid, '/ref/lid', '`ref.lid`', problems);
  if (raw.id !== undefined && raw.lid !== undefined)
    problems.push(invalid('A `ref` names its record by `id` or by `lid`, not both.', '/ref'));
  return { type, id, lid };
};

/** `data` of add and update: the single write's resource object, with the `lid` JSON:API lets it carry. */
const parseData = (raw: unknown, problems: ErrorObject[]): { object: ResourceObject; lid: string | null } | null => {
  if (!isObject(raw)) {
    problems.push(invalid('`data` must be one resource object.', '/data', 'document_invalid'));
    return null;
  }
  const { lid: rawLid, ...rest } = raw;
  const lid = rawLid === undefined ? null : nonEmptyString(rawLid, '/data/lid', '`data.lid`', problems);
  try {
    return { object: parseResourceDocument({ data: rest }), lid };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    problems.push(...error.errors);
    return null;
  }
};

type Known = Map<string, { resource: ResourceName; resourceAt: string; index: number }>;

/** One operation, or the problems that make it unreadable (relative pointers). */
const parseOperation = (raw: unknown, index: number, baseUrl: string, known: Known, problems: ErrorObject[]): AtomicOperation | null => {
  if (!isObject(raw)) {
    problems.push(invalid('An operation is an object: { "op", "ref" | "href", "data" }.', ''));
    return null;
  }
  for (const member of Object.keys(raw)) {
    // No more than the answer reports: a body of stray members would otherwise cost an error object each.
    if (problems.length >= MAX_REPORTED_PROBLEMS) break;
    if (!OPERATION_MEMBERS.has(member)) {
      problems.push(invalid(`The member ${echo(member)} is not part of an operation; use op, ref, href, data and meta.`, pointer(member)));
    }
  }
  const op = raw.op;
  if (typeof op !== 'string' || !(KINDS as readonly string[]).includes(op)) {
    problems.push(invalid('`op` is `add`, `update` or `remove`.', '/op'));
    return null;
  }
  const kind = op as OperationKind;
  const href = raw.href === undefined ? null : parseHref(raw.href, baseUrl, problems);
  const ref = raw.ref === undefined ? null : parseRef(raw.ref, problems);
  if (kind === 'add' && raw.ref !== undefined) problems.push(invalid('An `add` creates a record: it takes no `ref`.', '/ref'));
  if (kind === 'remove' && raw.data !== undefined) problems.push(invalid('A `remove` takes no `data`; name the record in `ref`.', '/data'));
  if (kind === 'remove' && raw.ref === undefined && raw.href === undefined) {
    problems.push(invalid('A `remove` names its record in `ref` ({ "type", "id" }) or `href`.', ''));
  }
  if (kind !== 'remove' && raw.data === undefined) problems.push(invalid(`An \`${kind}\` carries its record in \`data\`.`, '/data'));
  const data = kind === 'remove' || raw.data === undefined ? null : parseData(raw.data, problems);
  if (kind === 'add' && href?.record) {
    problems.push(invalid('An `add` names a collection in `href`, not a record: the server gives the record its id.', '/href'));
  }

  // The record, named once.
  const names: NamedRecord[] = [];
  if (href?.record) names.push({ by: 'identifier', value: href.record, at: '/href' });
  if (ref?.id) names.push({ by: 'identifier', value: ref.id, at: '/ref/id' });
  if (ref?.lid) names.push({ by: 'lid', value: ref.lid, at: '/ref/lid' });
  if (kind === 'update' && data && !ref) {
    if (data.object.id !== null) names.push({ by: 'identifier', value: data.object.id, at: '/data/id' });
    else if (data.lid !== null) names.push({ by: 'lid', value: data.lid, at: '/data/lid' });
  }
  if (names.length > 1) problems.push(invalid('Name the record once: in `href`, or in `ref`.', names[1]!.at));
  if (kind === 'update' && data && ref && data.lid !== null && ref.lid !== data.lid) {
    problems.push(invalid('`data.lid` must be the `ref.lid` of the record updated.', '/data/lid'));
  }
  const named = names[0] ?? null;
  if (named?.by === 'lid' && !known.has(named.value)) {
    problems.push(
      invalid(`No earlier operation of this request adds a record with the lid ${echo(named.value)}.`, named.at, 'lid_unknown'),
    );
  }
  if (kind === 'add' && data?.lid && known.has(data.lid)) {
    problems.push(
      invalid(
        `The lid ${echo(data.lid)} is already given to a record by operation ${known.get(data.lid)!.index}.`,
        '/data/lid',
        'lid_repeated',
      ),
    );
  }

  // The resource: the href's, the one the lid's record belongs to, or the native resource of the type.
  const types = [
    ...(ref?.type ? [{ value: ref.type, at: '/ref/type' }] : []),
    ...(data ? [{ value: data.object.type, at: '/data/type' }] : []),
  ];
  const lidResource = named?.by === 'lid' ? known.get(named.value) : undefined;
  let resource: ResourceName | null = null;
  let resourceAt = '';
  if (href) {
    resource = href.resource;
    resourceAt = '/href';
  } else if (lidResource) {
    resource = lidResource.resource;
    resourceAt = named!.at;
  } else if (types[0]) {
    resource = { source: 'native', slug: types[0].value };
    resourceAt = types[0].at;
  } else if (kind === 'remove' && ref && !ref.type) {
    problems.push(invalid('`ref.type` names the resource: the slug of a native resource (CMS resources are named by `href`).', '/ref'));
  }
  if (lidResource && href && JSON.stringify(lidResource.resource) !== JSON.stringify(href.resource)) {
    problems.push(
      invalid(`The lid ${echo(named!.value)} names a record of another resource than the \`href\`.`, named!.at, 'lid_type_mismatch'),
    );
  }
  if (resource === null || (kind !== 'remove' && data === null)) return null;

  const record: RecordName | null = kind === 'add' ? null : (named ?? { by: 'singleton' });
  if (kind === 'add' && data?.lid) known.set(data.lid, { resource, resourceAt, index });
  return {
    index,
    op: kind,
    resource,
    resourceAt,
    record,
    types,
    query: href?.query ?? new URLSearchParams(),
    data: data?.object ?? null,
    lid: kind === 'add' ? (data?.lid ?? null) : null,
  };
};

/**
 * The request document -> its operations in order. 400 with a pointer per problem (at most the first
 * operations' problems, all of one pass), 413 beyond MAX_OPERATIONS.
 */
export const parseAtomicDocument = (body: unknown, baseUrl: string): AtomicOperation[] => {
  if (!isObject(body)) {
    throw apiError(400, `The body must be a JSON:API document with an \`${OPERATIONS_MEMBER}\` array.`, {
      source: { pointer: '' },
      reason: 'document_invalid',
    });
  }
  const problems: ErrorObject[] = [];
  for (const member of Object.keys(body)) {
    if (problems.length >= MAX_REPORTED_PROBLEMS) break;
    if (!TOP_LEVEL.has(member)) {
      problems.push(
        invalid(
          `The top-level member ${echo(member)} is not accepted here; send \`${OPERATIONS_MEMBER}\`.`,
          pointer(member),
          'document_invalid',
        ),
      );
    }
  }
  const operations = body[OPERATIONS_MEMBER];
  if (!Array.isArray(operations) || operations.length === 0) {
    problems.push(
      invalid(`\`${OPERATIONS_MEMBER}\` must be a non-empty array of operations.`, pointer(OPERATIONS_MEMBER), 'document_invalid'),
    );
    throw apiErrors(400, problems);
  }
  if (operations.length > MAX_OPERATIONS) {
    throw apiError(
      413,
      `One request carries at most ${MAX_OPERATIONS} operations; this one has ${operations.length}. Send the rest in further requests.`,
      {
        source: { pointer: pointer(OPERATIONS_MEMBER) },
        reason: 'too_many_operations',
      },
    );
  }
  const known: Known = new Map();
  const parsed: AtomicOperation[] = [];
  for (const [index, raw] of operations.entries()) {
    // The answer reports the first MAX_REPORTED_PROBLEMS problems: once they are found, the rest is not read.
    if (problems.length >= MAX_REPORTED_PROBLEMS) break;
    const own: ErrorObject[] = [];
    const operation = parseOperation(raw, index, baseUrl, known, own);
    if (own.length) problems.push(...underOperation(apiErrors(400, own), index).errors);
    else if (operation) parsed.push(operation);
  }
  if (problems.length) throw apiErrors(400, problems.slice(0, MAX_REPORTED_PROBLEMS));
  return parsed;
};
