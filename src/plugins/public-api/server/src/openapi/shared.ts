/**
 * Schemas every key's document may share: the JSON:API envelope, the error document, field metadata,
 * record meta, asset objects and the richtext document. Each describes exactly what the serializers
 * in ../serialize and ../http send (closed objects, so that a drift fails validation).
 */
import { ERROR_STATUSES, type ErrorStatus } from '../http/errors';
import { JSONAPI_MEDIA_TYPE } from '../http/media-types';
import { FIELD_TYPES } from '../registry/types';
import type { Components } from './components';
import type { Ref, ResponseObject, Schema } from './types';

export const nullable = (schema: Schema | Ref): Schema => {
  if ('$ref' in schema || schema.type === undefined) return { oneOf: [schema as Schema, { type: 'null' }] };
  const type = schema.type;
  const types = Array.isArray(type) ? type : [type as string];
  const result: Schema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) result.enum = [...schema.enum, null];
  return result;
};

/** A closed object: every listed property, only those. */
export const object = (properties: Record<string, Schema | Ref>, required: string[] = Object.keys(properties), extra: Schema = {}): Schema => ({
  type: 'object',
  ...extra,
  ...(required.length ? { required } : {}),
  properties: properties as Schema,
  additionalProperties: false,
});

export const jsonApi = (c: Components): Ref =>
  c.schema('JsonApi', () =>
    object({ version: { type: 'string', const: '1.1', description: 'The JSON:API version: always 1.1.' } }, ['version'], {
      description: 'The top-level `jsonapi` member.',
    })
  );

// ---------------------------------------------------------------------------------------------------------
// Errors (contract section 8)
// ---------------------------------------------------------------------------------------------------------

export const errorDocument = (c: Components): Ref =>
  c.schema('ErrorDocument', () =>
    object(
      {
        jsonapi: jsonApi(c),
        errors: {
          type: 'array',
          minItems: 1,
          items: c.schema('ErrorObject', () =>
            object(
              {
                status: { type: 'string', description: 'The HTTP status, as a string.', enum: Object.keys(ERROR_STATUSES) },
                code: {
                  type: 'string',
                  description: 'The machine-readable code of the status.',
                  enum: Object.values(ERROR_STATUSES).map((entry) => entry.code),
                },
                title: { type: 'string', description: 'The status title.' },
                detail: { type: 'string', description: 'What went wrong, for people.' },
                source: {
                  description: 'What in the request the error is about.',
                  oneOf: [
                    object({ pointer: { type: 'string', description: 'A JSON pointer into the request body.' } }),
                    object({ parameter: { type: 'string', description: 'The query parameter, as sent.' } }),
                    object({ header: { type: 'string', description: 'The request header.' } }),
                  ],
                },
                meta: object({ reason: { type: 'string', description: 'A finer machine-readable reason.' } }),
              },
              ['status', 'code', 'title', 'detail'],
              { description: 'One error.' }
            )
          ),
        },
      },
      ['jsonapi', 'errors'],
      { description: 'Every error response of /api/v2.' }
    )
  );

const RESPONSE_NAMES: Record<ErrorStatus, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  416: 'RangeNotSatisfiable',
  422: 'UnprocessableEntity',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

const RESPONSE_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'The request is malformed: a query parameter (named in `source.parameter`) or the body.',
  401: 'The API key is missing, malformed, unknown, expired or revoked.',
  403: 'The key lacks the grant for this resource or action, or the browser origin is not allowed.',
  404: 'The resource or record does not exist for this key.',
  405: 'The resource never supports this method.',
  406: 'The Accept header excludes every media type this endpoint answers with.',
  409: 'The write conflicts with the current state (type or id mismatch, duplicate slug, a retry still running).',
  413: 'The request body is larger than 1 MiB.',
  415: 'The request body is not application/json or application/vnd.api+json.',
  416: 'The requested byte range cannot be served from this file.',
  422: 'The body is valid JSON but names unknown or non-writable fields or holds invalid values (see `source.pointer`).',
  429: 'Too many requests.',
  500: 'The server could not complete the request; it has been logged.',
  503: 'The server is busy (for commands with files: too many uploads in flight); retry after `Retry-After` seconds.',
};

/** The error response of a status: the error document, with the headers that status carries. */
export const errorResponse = (c: Components, status: ErrorStatus): Ref =>
  c.response(RESPONSE_NAMES[status], (): ResponseObject => {
    const response: ResponseObject = {
      description: RESPONSE_DESCRIPTIONS[status],
      content: { [JSONAPI_MEDIA_TYPE]: { schema: errorDocument(c) } },
    };
    if (status === 401) {
      response.headers = {
        'WWW-Authenticate': c.header('WWW-Authenticate', () => ({
          description: 'The authentication scheme: `Bearer`.',
          schema: { type: 'string' },
        })),
      };
    }
    if (status === 503) {
      response.headers = {
        'Retry-After': c.header('Retry-After', () => ({
          description: 'Seconds to wait before retrying.',
          schema: { type: 'string', pattern: '^[0-9]+$' },
        })),
      };
    }
    return response;
  });

export const errorResponses = (c: Components, statuses: readonly ErrorStatus[]): Record<string, Ref> =>
  Object.fromEntries(statuses.map((status) => [String(status), errorResponse(c, status)]));

// ---------------------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------------------

export const recordMeta = (c: Components): Ref =>
  c.schema('RecordMeta', () =>
    object(
      {
        slug: { type: ['string', 'null'], description: "The record's public identifier (its uid field), or null." },
        sort: { type: ['integer', 'null'], description: "The record's system sort value, or null." },
        createdAt: { type: 'integer', description: 'Unix milliseconds.' },
        updatedAt: { type: 'integer', description: 'Unix milliseconds.' },
        publishedAt: { type: 'integer', description: 'Unix milliseconds.' },
      },
      undefined,
      { description: 'System values of a record.' }
    )
  );

export const fieldMeta = (c: Components): Ref =>
  c.schema('FieldMeta', () =>
    object(
      {
        key: { type: 'string' },
        label: { type: 'string' },
        type: { type: 'string', enum: [...FIELD_TYPES] },
        required: { type: 'boolean' },
        readable: { type: 'boolean' },
        writable: { type: 'boolean', description: 'Mirrors the write grant of the key.' },
        inlineEditable: { type: 'boolean' },
        sortable: { type: 'boolean', description: 'Whether the field can be used in `sort`.' },
        expandable: { type: 'boolean', description: 'Whether the relation can be expanded with `include`.' },
        filterable: { type: 'boolean', description: 'Whether the field can be used in `filter`.' },
        options: {
          type: 'array',
          description: 'The values of a select field.',
          items: object({ value: { type: 'string' }, label: { type: 'string' } }),
        },
        allowedTypes: { type: 'array', description: 'MIME patterns a media field accepts.', items: { type: 'string' } },
      },
      ['key', 'label', 'type', 'required', 'readable', 'writable', 'inlineEditable', 'sortable', 'expandable', 'filterable'],
      { description: 'What the key may do with one field.' }
    )
  );

export const asset = (c: Components): Ref =>
  c.schema('Asset', () =>
    object(
      {
        id: { type: 'string' },
        url: { type: 'string', format: 'uri', description: 'Absolute and stable: `{base_url}/assets/{token}/{fileName}`.' },
        fileName: { type: 'string' },
        mimeType: { type: 'string' },
        size: { type: 'integer', minimum: 0, description: 'Bytes.' },
        width: { type: ['integer', 'null'], description: 'Pixels; null for files that are not images.' },
        height: { type: ['integer', 'null'], description: 'Pixels; null for files that are not images.' },
        alt: { type: ['string', 'null'] },
        caption: { type: ['string', 'null'] },
      },
      undefined,
      { description: 'A file referenced from content.' }
    )
  );

// ---------------------------------------------------------------------------------------------------------
// Richtext (contract section 2, serialize/richtext.ts)
// ---------------------------------------------------------------------------------------------------------

const FORMAT_MARKS = ['bold', 'italic', 'underline', 'strike', 'code'];

const formatMark = (c: Components) =>
  c.schema('RichtextFormatMark', () => object({ type: { type: 'string', enum: FORMAT_MARKS } }));

const linkMark = (c: Components) =>
  c.schema('RichtextLinkMark', () =>
    object({
      type: { type: 'string', const: 'link' },
      attrs: object({ href: { type: 'string' }, rel: { type: 'string' }, target: { type: 'string' } }, ['href']),
    })
  );

const marks = (c: Components, links: boolean): Schema => ({
  type: 'array',
  minItems: 1,
  items: links ? { oneOf: [formatMark(c), linkMark(c)] } : formatMark(c),
});

const textNode = (c: Components) =>
  c.schema('RichtextText', () =>
    object({ type: { type: 'string', const: 'text' }, text: { type: 'string', minLength: 1 }, marks: marks(c, true) }, ['type', 'text'])
  );

const codeText = (c: Components) =>
  c.schema('RichtextCodeText', () =>
    object({ type: { type: 'string', const: 'text' }, text: { type: 'string', minLength: 1 }, marks: marks(c, false) }, ['type', 'text'], {
      description: 'Text inside a codeBlock: line breaks stay in the text, and no links.',
    })
  );

const inline = (c: Components): Schema => ({
  type: 'array',
  items: {
    oneOf: [
      textNode(c),
      c.schema('RichtextHardBreak', () => object({ type: { type: 'string', const: 'hardBreak' }, marks: marks(c, true) }, ['type'])),
    ],
  },
});

const paragraph = (c: Components) =>
  c.schema('RichtextParagraph', () => object({ type: { type: 'string', const: 'paragraph' }, content: inline(c) }, ['type']));

const list = (c: Components): Ref =>
  c.schema('RichtextList', () =>
    object(
      {
        type: { type: 'string', enum: ['bulletList', 'orderedList'] },
        attrs: object({ indentLevel: { type: ['integer', 'null'], minimum: 0 } }),
        content: {
          type: 'array',
          items: c.schema('RichtextListItem', () =>
            object({
              type: { type: 'string', const: 'listItem' },
              content: { type: 'array', items: { oneOf: [paragraph(c), list(c)] } },
            })
          ),
        },
      },
      ['type', 'content']
    )
  );

/** The block nodes shared by read and write documents; they differ only in how images name assets. */
const blocks = (c: Components, image: Ref): Schema => ({
  type: 'array',
  items: {
    oneOf: [
      paragraph(c),
      c.schema('RichtextHeading', () =>
        object(
          {
            type: { type: 'string', const: 'heading' },
            attrs: object({ level: { type: 'integer', minimum: 1, maximum: 6 } }),
            content: inline(c),
          },
          ['type', 'attrs']
        )
      ),
      c.schema('RichtextBlockquote', () =>
        object({
          type: { type: 'string', const: 'blockquote' },
          content: { type: 'array', minItems: 1, maxItems: 1, items: paragraph(c) },
        })
      ),
      c.schema('RichtextCodeBlock', () =>
        object(
          {
            type: { type: 'string', const: 'codeBlock' },
            attrs: object({ language: { type: ['string', 'null'] } }),
            content: { type: 'array', items: codeText(c) },
          },
          ['type']
        )
      ),
      list(c),
      image,
    ],
  },
});

/** The richtext document as reads send it: images carry their asset's stable URL. */
export const richtextDoc = (c: Components): Ref =>
  c.schema('RichtextDoc', () =>
    object(
      {
        type: { type: 'string', const: 'doc' },
        content: blocks(
          c,
          c.schema('RichtextImage', () =>
            object({
              type: { type: 'string', const: 'image' },
              attrs: object({
                id: { type: ['string', 'null'], description: 'The asset id.' },
                src: { type: ['string', 'null'], description: "The asset's stable URL." },
                alt: { type: ['string', 'null'] },
                caption: { type: ['string', 'null'] },
                width: { type: ['number', 'null'] },
                height: { type: ['number', 'null'] },
                mimeType: { type: ['string', 'null'] },
                fileName: { type: 'string' },
              }),
            })
          )
        ),
      },
      undefined,
      { description: 'A ProseMirror-style rich text document.' }
    )
  );

/** The richtext document as writes take it: an image names an existing asset by `attrs.id`. */
export const richtextDocInput = (c: Components): Ref =>
  c.schema('RichtextDocInput', () =>
    object(
      {
        type: { type: 'string', const: 'doc' },
        content: blocks(
          c,
          c.schema('RichtextImageInput', () =>
            object({
              type: { type: 'string', const: 'image' },
              attrs: {
                type: 'object',
                required: ['id'],
                properties: { id: { type: 'string', minLength: 1, description: 'The id of an existing asset.' } },
                description: 'The other members an image has on reads may be sent back; the asset is found by `id`.',
              },
            })
          )
        ),
      },
      undefined,
      { description: 'A rich text document to store; read strictly (unknown nodes, members and marks are refused).' }
    )
  );
