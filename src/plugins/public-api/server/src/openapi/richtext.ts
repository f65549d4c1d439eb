/**
 * The richtext document (contract section 2, richtext/) as reads send it and as writes take it:
 * closed objects, so that a drift from the converters fails validation.
 */
import type { Components } from './document-components';
import { object } from './schema';
import type { Ref, Schema } from './types';

const FORMAT_MARKS = ['bold', 'italic', 'underline', 'strike', 'code'];

const formatMark = (c: Components) => c.schema('RichtextFormatMark', () => object({ type: { type: 'string', enum: FORMAT_MARKS } }));

const linkMark = (c: Components) =>
  c.schema('RichtextLinkMark', () =>
    object({
      type: { type: 'string', const: 'link' },
      attrs: object({ href: { type: 'string' }, rel: { type: 'string' }, target: { type: 'string' } }, ['href']),
    }),
  );

const marks = (c: Components, links: boolean): Schema => ({
  type: 'array',
  minItems: 1,
  items: links ? { oneOf: [formatMark(c), linkMark(c)] } : formatMark(c),
});

const textNode = (c: Components) =>
  c.schema('RichtextText', () =>
    object({ type: { type: 'string', const: 'text' }, text: { type: 'string', minLength: 1 }, marks: marks(c, true) }, ['type', 'text']),
  );

const codeText = (c: Components) =>
  c.schema('RichtextCodeText', () =>
    object({ type: { type: 'string', const: 'text' }, text: { type: 'string', minLength: 1 }, marks: marks(c, false) }, ['type', 'text'], {
      description: 'Text inside a codeBlock: line breaks stay in the text, and no links.',
    }),
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
            }),
          ),
        },
      },
      ['type', 'content'],
    ),
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
          ['type', 'attrs'],
        ),
      ),
      c.schema('RichtextBlockquote', () =>
        object({
          type: { type: 'string', const: 'blockquote' },
          content: { type: 'array', minItems: 1, maxItems: 1, items: paragraph(c) },
        }),
      ),
      c.schema('RichtextCodeBlock', () =>
        object(
          {
            type: { type: 'string', const: 'codeBlock' },
            attrs: object({ language: { type: ['string', 'null'] } }),
            content: { type: 'array', items: codeText(c) },
          },
          ['type'],
        ),
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
            }),
          ),
        ),
      },
      undefined,
      { description: 'A ProseMirror-style rich text document.' },
    ),
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
            }),
          ),
        ),
      },
      undefined,
      { description: 'A rich text document to store; read strictly (unknown nodes, members and marks are refused).' },
    ),
  );
