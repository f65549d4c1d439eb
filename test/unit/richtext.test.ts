/**
 * Strapi blocks <-> richtext documents: the round trip loses nothing, checked against Strapi's own blocks
 * validator, and the document side is read strictly with a pointer for every problem.
 */
import path from 'node:path';
import fc from 'fast-check';
import {
  MAX_LIST_DEPTH,
  blocksToDoc,
  docToBlocks,
  imageAttrsOf,
  type BlocksBlock,
  type BlocksImageFile,
  type BlocksInline,
  type BlocksLink,
  type BlocksList,
  type BlocksListItem,
  type BlocksText,
  type BlocksValue,
  type DocToBlocksResult,
  type ImageAttrs,
  type ImageLookup,
  type RichtextDoc,
  type RichtextIssue,
} from '../../src/plugins/public-api/server/src/richtext';

// Strapi's own validator for blocks values: what the database may hold, and what a write must produce.
const { blocksValidator } = require(
  path.join(path.dirname(require.resolve('@strapi/core/package.json')), 'dist/services/entity-validator/blocks-validator.js'),
) as { blocksValidator: () => { validateSync: (value: unknown, options: object) => unknown } };

const expectStrapiAccepts = (blocks: unknown) => {
  expect(() => blocksValidator().validateSync(blocks, { strict: true, abortEarly: false })).not.toThrow();
};

// ---------------------------------------------------------------------------------------------------------
// Images: a tiny asset store standing in for the upload plugin
// ---------------------------------------------------------------------------------------------------------

const uploadFile = (id: number): BlocksImageFile => ({
  id,
  documentId: `file${id}`,
  name: `photo-${id}.jpg`,
  alternativeText: id % 2 ? `Photo ${id}` : null,
  caption: null,
  url: `/uploads/photo_${id}.jpg`,
  width: 800,
  height: 600,
  formats: null,
  hash: `photo_${id}`,
  ext: '.jpg',
  mime: 'image/jpeg',
  size: 12.5,
  previewUrl: null,
  provider: 'local',
  provider_metadata: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-02T00:00:00.000Z',
});

const FILES = new Map(Array.from({ length: 5 }, (_, index) => [`file${index + 1}`, uploadFile(index + 1)]));

const imageToAttrs = (file: BlocksImageFile): ImageAttrs => ({
  id: String(file.documentId),
  url: `https://cms.example/api/v2/assets/token/${String(file.name)}`,
  alt: typeof file.alternativeText === 'string' ? file.alternativeText : null,
});

const attrsToImage = (attrs: ImageAttrs): ImageLookup => {
  const file = typeof attrs.id === 'string' ? FILES.get(attrs.id) : undefined;
  return file ? { ok: true, file } : { ok: false, message: 'No such asset.' };
};

const toDoc = (blocks: BlocksValue) => blocksToDoc(blocks, { imageToAttrs });
const toBlocks = (doc: unknown, pointer?: string): DocToBlocksResult => docToBlocks(doc, { attrsToImage, pointer });

const blocksOf = (doc: unknown): BlocksValue => {
  const result = toBlocks(doc);
  if (!result.ok) throw new Error(`Unexpected issues: ${JSON.stringify(result.issues)}`);
  return result.blocks;
};

const issuesOf = (doc: unknown, pointer?: string): RichtextIssue[] => {
  const result = toBlocks(doc, pointer);
  if (result.ok) throw new Error(`Expected issues, got ${JSON.stringify(result.blocks)}`);
  return result.issues;
};

const roundTrip = (blocks: BlocksValue) => blocksOf(toDoc(blocks));

// ---------------------------------------------------------------------------------------------------------
// A projection of what a reader sees: every character with its marks and link, and the block structure.
// Written independently of the converter, for both sides.
// ---------------------------------------------------------------------------------------------------------

const FLAGS = ['bold', 'italic', 'underline', 'strikethrough', 'code'] as const;
type Flag = (typeof FLAGS)[number];
type LinkRef = { url: string; rel?: string; target?: string } | null;

const character = (char: string, flags: readonly string[], link: LinkRef) =>
  JSON.stringify([char, FLAGS.filter((flag) => flags.includes(flag)), link && [link.url, link.rel ?? null, link.target ?? null]]);

const textCharacters = (text: BlocksText, link: LinkRef) =>
  [...text.text].map((char) =>
    character(
      char,
      FLAGS.filter((flag) => text[flag] === true),
      link,
    ),
  );

const inlineCharacters = (children: readonly BlocksInline[]) =>
  children.flatMap((child) =>
    child.type === 'text'
      ? textCharacters(child, null)
      : child.children.flatMap((text) => textCharacters(text, { url: child.url, rel: child.rel, target: child.target })),
  );

const renderBlock = (block: BlocksBlock | BlocksListItem): unknown => {
  switch (block.type) {
    case 'paragraph':
      return ['p', inlineCharacters(block.children)];
    case 'heading':
      return ['h', block.level, inlineCharacters(block.children)];
    case 'quote':
      return ['q', inlineCharacters(block.children)];
    case 'code':
      return ['code', 'language' in block ? block.language : '(none)', inlineCharacters(block.children)];
    case 'list':
      return ['list', block.format, block.indentLevel ?? '(none)', block.children.map(renderBlock)];
    case 'list-item':
      return ['li', inlineCharacters(block.children)];
    case 'image':
      return ['img', imageToAttrs(block.image)];
  }
};
const renderBlocks = (blocks: BlocksValue) => blocks.map(renderBlock);

type AnyNode = {
  type: string;
  text?: string;
  attrs?: Record<string, unknown>;
  marks?: { type: string; attrs?: Record<string, unknown> }[];
  content?: AnyNode[];
};

const nodeCharacters = (content: readonly AnyNode[] = []) =>
  content.flatMap((node) => {
    const marks = node.marks ?? [];
    const flags = marks.map((mark) => (mark.type === 'strike' ? 'strikethrough' : mark.type));
    const link = marks.find((mark) => mark.type === 'link')?.attrs as { href: string; rel?: string; target?: string } | undefined;
    const ref: LinkRef = link ? { url: link.href, rel: link.rel, target: link.target } : null;
    return node.type === 'hardBreak' ? [character('\n', flags, ref)] : [...(node.text ?? '')].map((char) => character(char, flags, ref));
  });

/** The list level a document means: given, or where the admin would put it. */
const renderNode = (node: AnyNode, parentLevel?: number, nested = false): unknown[] => {
  switch (node.type) {
    case 'paragraph':
      return [['p', nodeCharacters(node.content)]];
    case 'heading':
      return [['h', node.attrs!.level, nodeCharacters(node.content)]];
    case 'blockquote':
      return [['q', nodeCharacters(node.content![0]!.content)]];
    case 'codeBlock':
      return [['code', node.attrs ? node.attrs.language : '(none)', nodeCharacters(node.content)]];
    case 'bulletList':
    case 'orderedList': {
      const given = node.attrs?.indentLevel as number | null | undefined;
      const level = given === undefined ? (nested ? (parentLevel ?? 0) + 1 : undefined) : (given ?? undefined);
      const children = node.content!.flatMap((item) =>
        item.content!.flatMap((child) =>
          child.type === 'paragraph' ? [['li', nodeCharacters(child.content)]] : renderNode(child, level, true),
        ),
      );
      return [['list', node.type === 'orderedList' ? 'ordered' : 'unordered', level ?? '(none)', children]];
    }
    case 'image':
      return [['img', node.attrs]];
    default:
      throw new Error(`Unexpected node ${node.type}`);
  }
};
const renderDoc = (doc: RichtextDoc) => (doc.content as AnyNode[]).flatMap((node) => renderNode(node));

/** ProseMirror's own rules: no empty text nodes, and line breaks as hardBreak outside code. */
const expectProseMirrorShape = (node: AnyNode, inCode = false): void => {
  if (node.type === 'text') {
    expect(node.text).not.toBe('');
    if (!inCode) expect(node.text).not.toContain('\n');
  }
  // Only the document itself may be empty: Strapi stores [] for an emptied field.
  if (node.content && node.type !== 'doc') expect(node.content.length).toBeGreaterThan(0);
  for (const child of node.content ?? []) expectProseMirrorShape(child, inCode || node.type === 'codeBlock');
};

// ---------------------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------------------

const flagSet = fc.subarray([...FLAGS]);
const withFlags = (text: string, flags: readonly Flag[]): BlocksText => ({
  type: 'text',
  text,
  ...Object.fromEntries(flags.map((flag) => [flag, true])),
});

/** Text with line breaks in all places: alone, leading, trailing, doubled. */
const textContent = fc
  .array(
    fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }), fc.constant('\n')),
    {
      minLength: 1,
      maxLength: 4,
    },
  )
  .map((parts) => parts.join(''));

const URLS = [
  'https://example.com',
  'https://example.com/a?b=c#d',
  '/relative/path',
  'mailto:someone@example.com',
  'tel:+123456',
  'ftp://files.example.com/x',
  'http://x.test',
];
const linkAttributes = fc.record(
  {
    url: fc.constantFrom(...URLS),
    rel: fc.constantFrom('', 'noopener', 'nofollow noreferrer'),
    target: fc.constantFrom('', '_blank', '_self'),
  },
  { requiredKeys: ['url'] },
);

const sameFlags = (a: BlocksText, b: BlocksText) => FLAGS.every((flag) => (a[flag] === true) === (b[flag] === true));

/** Non-empty texts, neighbours with different marks: Slate's normal form of a run of text. */
const textRun = fc.array(fc.tuple(textContent, flagSet), { minLength: 1, maxLength: 4 }).map((parts) => {
  const run: BlocksText[] = [];
  for (const [text, flags] of parts) {
    const next = withFlags(text, flags);
    const previous = run.at(-1);
    if (previous && sameFlags(previous, next)) previous.text += next.text;
    else run.push(next);
  }
  return run;
});

const EMPTY: BlocksText = { type: 'text', text: '' };
const sameLinkAttributes = (a: Omit<BlocksLink, 'children' | 'type'>, b: Omit<BlocksLink, 'children' | 'type'>) =>
  a.url === b.url && a.rel === b.rel && a.target === b.target;

/** Inline children in the normal form the Strapi editor saves: T (L T)*, T empty only where needed. */
const canonicalInline: fc.Arbitrary<BlocksInline[]> = fc
  .tuple(
    fc.option(textRun, { nil: null }),
    fc.array(fc.tuple(linkAttributes, textRun, fc.option(textRun, { nil: null })), { maxLength: 3 }),
  )
  .map(([first, links]) => {
    if (links.length === 0) return first ?? [{ ...EMPTY }];
    const children: BlocksInline[] = [...(first ?? [{ ...EMPTY }])];
    links.forEach(([attributes, texts, after], index) => {
      children.push({ type: 'link', ...attributes, children: texts });
      const next = links[index + 1];
      // An empty text between two identical links would let them merge: put something there.
      const between = after ?? (next && sameLinkAttributes(attributes, next[0]) ? [{ type: 'text' as const, text: 'x' }] : null);
      children.push(...(between ?? [{ ...EMPTY }]));
    });
    return children;
  });

const LANGUAGES = ['plaintext', 'javascript', 'typescript', 'c++', ''];

const codeBlock = (children: fc.Arbitrary<BlocksText[]>): fc.Arbitrary<BlocksBlock> =>
  fc.tuple(fc.option(fc.option(fc.constantFrom(...LANGUAGES), { nil: null }), { nil: undefined }), children).map(([language, texts]) => ({
    type: 'code',
    ...(language === undefined ? {} : { language }),
    children: texts,
  }));

const image = (children: fc.Arbitrary<BlocksInline[]>): fc.Arbitrary<BlocksBlock> =>
  fc.tuple(fc.integer({ min: 1, max: 5 }), children).map(([id, inline]) => ({ type: 'image', image: uploadFile(id), children: inline }));

/** A list whose levels are mostly what the editor sets, sometimes anything (or missing). */
const list = (
  inline: fc.Arbitrary<BlocksInline[]>,
  depth: number,
  parentLevel: number | undefined,
  nested: boolean,
): fc.Arbitrary<BlocksList> =>
  fc
    .tuple(
      fc.constantFrom('ordered' as const, 'unordered' as const),
      fc.oneof(fc.constant('editor'), fc.constant(undefined), fc.integer({ min: 0, max: 5 })),
    )
    .chain(([format, chosen]) => {
      const level = chosen === 'editor' ? (nested ? (parentLevel ?? 0) + 1 : undefined) : chosen;
      const item = inline.map((children): BlocksListItem => ({ type: 'list-item', children }));
      const child =
        depth < 3 ? fc.oneof({ weight: 3, arbitrary: item }, { weight: 1, arbitrary: list(inline, depth + 1, level, true) }) : item;
      return fc.array(child, { minLength: 1, maxLength: 4 }).map((children): BlocksList => ({
        type: 'list',
        format,
        ...(level === undefined ? {} : { indentLevel: level }),
        children,
      }));
    });

const blocksFrom = (inline: fc.Arbitrary<BlocksInline[]>, code: fc.Arbitrary<BlocksText[]>, imageChildren: fc.Arbitrary<BlocksInline[]>) =>
  fc.array(
    fc.oneof(
      inline.map((children): BlocksBlock => ({ type: 'paragraph', children })),
      fc
        .tuple(fc.constantFrom(1, 2, 3, 4, 5, 6 as const), inline)
        .map(([level, children]): BlocksBlock => ({ type: 'heading', level, children })),
      inline.map((children): BlocksBlock => ({ type: 'quote', children })),
      codeBlock(code),
      list(inline, 1, undefined, false),
      image(imageChildren),
    ),
    { maxLength: 8 },
  );

/** What the Strapi editor saves. */
const canonicalBlocks = blocksFrom(
  canonicalInline,
  fc.oneof(textRun, fc.constant<BlocksText[]>([{ ...EMPTY }])),
  fc.constant<BlocksInline[]>([{ ...EMPTY }]),
);

/** Anything Strapi's validator accepts: empty and unmarked texts anywhere, false flags, links side by side. */
const anyText: fc.Arbitrary<BlocksText> = fc
  .tuple(fc.oneof(textContent, fc.constant('')), fc.array(fc.tuple(fc.constantFrom(...FLAGS), fc.boolean()), { maxLength: 5 }))
  .map(([text, flags]) => ({ type: 'text', text, ...Object.fromEntries(flags) }));
const anyLink: fc.Arbitrary<BlocksInline> = fc
  .tuple(linkAttributes, fc.array(anyText, { maxLength: 3 }))
  .map(([attributes, children]) => ({ type: 'link', ...attributes, children }));
const anyInline = (minLength: number) => fc.array(fc.oneof(anyText, anyLink), { minLength, maxLength: 6 });
const anyBlocks = blocksFrom(anyInline(1), fc.array(anyText, { minLength: 1, maxLength: 4 }), anyInline(0));

// ---------------------------------------------------------------------------------------------------------
// Round trip
// ---------------------------------------------------------------------------------------------------------

describe('blocks -> doc -> blocks', () => {
  it('generates only values Strapi accepts', () => {
    fc.assert(fc.property(canonicalBlocks, expectStrapiAccepts), { numRuns: 200 });
    fc.assert(fc.property(anyBlocks, expectStrapiAccepts), { numRuns: 200 });
  });

  it('gives back exactly what the Strapi editor saves', () => {
    fc.assert(
      fc.property(canonicalBlocks, (blocks) => {
        expect(roundTrip(blocks)).toEqual(blocks);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps every character, mark, link, level, language and image of any valid value, in a value Strapi accepts', () => {
    fc.assert(
      fc.property(anyBlocks, (blocks) => {
        const back = roundTrip(blocks);
        expect(renderBlocks(back)).toEqual(renderBlocks(blocks));
        expectStrapiAccepts(back);
        expect(roundTrip(back)).toEqual(back);
        expect(toDoc(back)).toEqual(toDoc(blocks));
      }),
      { numRuns: 500 },
    );
  });

  it('writes documents that say what the blocks say, in ProseMirror shape', () => {
    fc.assert(
      fc.property(anyBlocks, (blocks) => {
        const doc = toDoc(blocks);
        expect(renderDoc(doc)).toEqual(renderBlocks(blocks));
        expectProseMirrorShape(doc as AnyNode);
        expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
      }),
      { numRuns: 500 },
    );
  });
});

describe('blocks -> doc', () => {
  it('maps each block and mark to its node', () => {
    const blocks: BlocksValue = [
      { type: 'heading', level: 2, children: [{ type: 'text', text: 'Programme' }] },
      {
        type: 'paragraph',
        children: [
          { type: 'text', text: 'Doors at ' },
          { type: 'text', text: '19:00', bold: true, italic: false },
          { type: 'text', text: '\nsee ' },
          { type: 'link', url: 'https://example.com', children: [{ type: 'text', text: 'map', underline: true }] },
          { type: 'text', text: '' },
        ],
      },
      { type: 'quote', children: [{ type: 'text', text: 'Loud', strikethrough: true, code: true }] },
      { type: 'code', language: 'js', children: [{ type: 'text', text: 'a();\nb();' }] },
      { type: 'paragraph', children: [{ type: 'text', text: '' }] },
      { type: 'image', image: uploadFile(1), children: [{ type: 'text', text: '' }] },
    ];
    expect(toDoc(blocks)).toEqual({
      type: 'doc',
      content: [
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Programme' }] },
        {
          type: 'paragraph',
          content: [
            { type: 'text', text: 'Doors at ' },
            { type: 'text', text: '19:00', marks: [{ type: 'bold' }] },
            { type: 'hardBreak' },
            { type: 'text', text: 'see ' },
            { type: 'text', text: 'map', marks: [{ type: 'underline' }, { type: 'link', attrs: { href: 'https://example.com' } }] },
          ],
        },
        {
          type: 'blockquote',
          content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Loud', marks: [{ type: 'strike' }, { type: 'code' }] }] }],
        },
        { type: 'codeBlock', attrs: { language: 'js' }, content: [{ type: 'text', text: 'a();\nb();' }] },
        { type: 'paragraph' },
        { type: 'image', attrs: { id: 'file1', url: 'https://cms.example/api/v2/assets/token/photo-1.jpg', alt: 'Photo 1' } },
      ],
    });
  });

  it('nests lists in the item they follow, and states only the levels the editor would not set', () => {
    const nested: BlocksList = {
      type: 'list',
      format: 'unordered',
      children: [
        { type: 'list', format: 'ordered', indentLevel: 1, children: [{ type: 'list-item', children: [{ type: 'text', text: 'first' }] }] },
        { type: 'list-item', children: [{ type: 'text', text: 'one' }] },
        { type: 'list', format: 'ordered', indentLevel: 1, children: [{ type: 'list-item', children: [{ type: 'text', text: 'one.a' }] }] },
        { type: 'list', format: 'unordered', children: [{ type: 'list-item', children: [{ type: 'text', text: 'one.b' }] }] },
      ],
    };
    const item = (text: string) => ({ type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] });
    expect(toDoc([nested, { ...nested, indentLevel: 0 }]).content).toEqual([
      {
        type: 'bulletList',
        content: [
          { type: 'listItem', content: [{ type: 'orderedList', content: [item('first')] }] },
          {
            type: 'listItem',
            content: [
              { type: 'paragraph', content: [{ type: 'text', text: 'one' }] },
              { type: 'orderedList', content: [item('one.a')] },
              { type: 'bulletList', attrs: { indentLevel: null }, content: [item('one.b')] },
            ],
          },
        ],
      },
      expect.objectContaining({ type: 'bulletList', attrs: { indentLevel: 0 } }),
    ]);
    expect(roundTrip([nested])).toEqual([nested]);
  });

  it('keeps a code language of null apart from none', () => {
    expect(toDoc([{ type: 'code', language: null, children: [{ type: 'text', text: 'x' }] }]).content[0]).toEqual({
      type: 'codeBlock',
      attrs: { language: null },
      content: [{ type: 'text', text: 'x' }],
    });
    expect(toDoc([{ type: 'code', children: [{ type: 'text', text: '' }] }]).content[0]).toEqual({ type: 'codeBlock' });
  });

  it('carries rel and target of a link, empty ones included', () => {
    const link: BlocksLink = { type: 'link', url: '/about', rel: '', target: '_blank', children: [{ type: 'text', text: 'About' }] };
    expect(toDoc([{ type: 'paragraph', children: [{ ...EMPTY }, link, { ...EMPTY }] }]).content[0]).toEqual({
      type: 'paragraph',
      content: [{ type: 'text', text: 'About', marks: [{ type: 'link', attrs: { href: '/about', rel: '', target: '_blank' } }] }],
    });
  });

  it('leaves out what Strapi would never have stored, rather than failing the read', () => {
    const corrupt = [
      { type: 'table', children: [] },
      { type: 'paragraph', children: [{ type: 'text', text: 'ok' }, { type: 'mention' }] },
    ];
    expect(toDoc(corrupt as unknown as BlocksValue).content).toEqual([{ type: 'paragraph', content: [{ type: 'text', text: 'ok' }] }]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// doc -> blocks
// ---------------------------------------------------------------------------------------------------------

const text = (value: string, marks?: unknown[]) => ({ type: 'text', text: value, ...(marks ? { marks } : {}) });
const paragraph = (...content: unknown[]) => ({ type: 'paragraph', content });
const doc = (...content: unknown[]) => ({ type: 'doc', content });

describe('doc -> blocks', () => {
  it('joins neighbours with equal marks and puts texts around links, as Slate does', () => {
    const link = { type: 'link', attrs: { href: 'https://example.com' } };
    expect(
      blocksOf(
        doc(
          paragraph(
            text('a', [{ type: 'bold' }]),
            text('b', [{ type: 'bold' }]),
            { type: 'hardBreak', marks: [{ type: 'bold' }] },
            text('x', [link]),
            text('y', [{ type: 'italic' }, link]),
            text('z', [link, { type: 'italic' }]),
          ),
        ),
      ),
    ).toEqual([
      {
        type: 'paragraph',
        children: [
          { type: 'text', text: 'ab\n', bold: true },
          {
            type: 'link',
            url: 'https://example.com',
            children: [
              { type: 'text', text: 'x' },
              { type: 'text', text: 'yz', italic: true },
            ],
          },
          { type: 'text', text: '' },
        ],
      },
    ]);
  });

  it('reads an empty document, empty blocks and empty marks', () => {
    expect(blocksOf(doc())).toEqual([]);
    expect(blocksOf(doc({ type: 'paragraph' }, { type: 'paragraph', content: [] }, paragraph(text('a', []))))).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: '' }] },
      { type: 'paragraph', children: [{ type: 'text', text: '' }] },
      { type: 'paragraph', children: [{ type: 'text', text: 'a' }] },
    ]);
  });

  it('gives nested lists the level the admin would, unless the document says otherwise', () => {
    const inner = (attrs?: object) => ({
      type: 'bulletList',
      ...(attrs ? { attrs } : {}),
      content: [{ type: 'listItem', content: [paragraph(text('b'))] }],
    });
    const outer = (attrs?: object, innerAttrs?: object) =>
      doc({
        type: 'orderedList',
        ...(attrs ? { attrs } : {}),
        content: [{ type: 'listItem', content: [paragraph(text('a')), inner(innerAttrs)] }],
      });
    const levels = (blocks: BlocksValue) => {
      const list = blocks[0] as BlocksList;
      return [list.indentLevel, (list.children[1] as BlocksList).indentLevel];
    };
    expect(levels(blocksOf(outer()))).toEqual([undefined, 1]);
    expect(levels(blocksOf(outer({ indentLevel: 2 })))).toEqual([2, 3]);
    expect(levels(blocksOf(outer(undefined, { indentLevel: null })))).toEqual([undefined, undefined]);
    expect(levels(blocksOf(outer({ indentLevel: 0 }, { indentLevel: 4 })))).toEqual([0, 4]);
  });

  it('accepts documents from any client in any valid shape, into values Strapi accepts', () => {
    const formatMark = fc.constantFrom('bold', 'italic', 'underline', 'strike', 'code').map((type) => ({ type }));
    const marks = fc
      .tuple(fc.uniqueArray(formatMark, { selector: (mark) => mark.type, maxLength: 3 }), fc.option(linkAttributes, { nil: null }))
      .chain(([formats, link]) => {
        const all = [
          ...formats,
          ...(link
            ? [
                {
                  type: 'link',
                  attrs: {
                    href: link.url,
                    ...(link.rel !== undefined && { rel: link.rel }),
                    ...(link.target !== undefined && { target: link.target }),
                  },
                },
              ]
            : []),
        ];
        return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
      });
    const withOptionalMarks = (node: object, nodeMarks: unknown[], bare: boolean) =>
      nodeMarks.length || !bare ? { ...node, marks: nodeMarks } : node;
    const inlineNode = fc.oneof(
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 6 }), marks, fc.boolean())
        .map(([value, nodeMarks, bare]) => withOptionalMarks({ type: 'text', text: value }, nodeMarks, bare)),
      fc.tuple(marks, fc.boolean()).map(([nodeMarks, bare]) => withOptionalMarks({ type: 'hardBreak' }, nodeMarks, bare)),
    );
    const inline = fc.array(inlineNode, { maxLength: 5 });
    const paragraphNode = fc
      .tuple(inline, fc.boolean())
      .map(([content, bare]) => (content.length || !bare ? { type: 'paragraph', content } : { type: 'paragraph' }));
    const listNode: fc.Memo<object> = fc.memo((n) =>
      fc.record({
        type: fc.constantFrom('bulletList', 'orderedList'),
        content: fc.array(
          fc
            .tuple(fc.option(paragraphNode, { nil: null }), n > 1 ? fc.array(listNode(n - 1), { maxLength: 2 }) : fc.constant([]))
            .filter(([first, lists]) => first !== null || lists.length > 0)
            .map(([first, lists]) => ({ type: 'listItem', content: [...(first ? [first] : []), ...lists] })),
          { minLength: 1, maxLength: 3 },
        ),
      }),
    );
    const block = fc.oneof(
      paragraphNode,
      fc.tuple(fc.integer({ min: 1, max: 6 }), inline).map(([level, content]) => ({ type: 'heading', attrs: { level }, content })),
      paragraphNode.map((content) => ({ type: 'blockquote', content: [content] })),
      fc
        .tuple(
          fc.array(fc.tuple(textContent, fc.uniqueArray(formatMark, { selector: (mark) => mark.type })), { maxLength: 3 }),
          fc.option(fc.constantFrom(...LANGUAGES), { nil: undefined }),
        )
        .map(([texts, language]) => ({
          type: 'codeBlock',
          ...(language === undefined ? {} : { attrs: { language } }),
          content: texts.map(([value, codeMarks]) => ({ type: 'text', text: value, marks: codeMarks })),
        })),
      listNode(3),
      fc.integer({ min: 1, max: 5 }).map((id) => ({ type: 'image', attrs: imageToAttrs(uploadFile(id)) })),
    );
    fc.assert(
      fc.property(fc.array(block, { maxLength: 6 }), (content) => {
        const input = { type: 'doc', content } as RichtextDoc;
        const blocks = blocksOf(input);
        expectStrapiAccepts(blocks);
        expect(renderBlocks(blocks)).toEqual(renderDoc(input));
        expect(roundTrip(blocks)).toEqual(blocks);
      }),
      { numRuns: 500 },
    );
  });

  it('looks images up through the caller, and lists their attrs beforehand', () => {
    const input = doc(
      paragraph(text('a')),
      { type: 'image', attrs: { id: 'file3' } },
      { type: 'bulletList', content: [{ type: 'listItem', content: [{ type: 'image', attrs: { id: 'x' } }] }] },
    );
    expect(imageAttrsOf(input)).toEqual([{ id: 'file3' }, { id: 'x' }]);
    expect(imageAttrsOf(null)).toEqual([]);
    expect(blocksOf(doc({ type: 'image', attrs: { id: 'file3' } }))).toEqual([
      { type: 'image', image: uploadFile(3), children: [{ type: 'text', text: '' }] },
    ]);
  });
});

describe('strict reading', () => {
  const pointers = (input: unknown, pointer?: string) => issuesOf(input, pointer).map((issue) => issue.pointer);

  it.each([
    ['not an object', null, ['']],
    ['an array', [], ['']],
    ['another type', { type: 'document', content: [] }, ['/type']],
    ['no content', { type: 'doc' }, ['/content']],
    ['an unknown member', { type: 'doc', content: [], version: 1 }, ['/version']],
    ['an unknown block', doc({ type: 'table' }), ['/content/0/type']],
    ['a text at the top', doc(text('a')), ['/content/0/type']],
    ['a block that is not an object', doc('text'), ['/content/0']],
    ['an unknown member of a paragraph', doc({ type: 'paragraph', content: [], align: 'left' }), ['/content/0/align']],
    ['a heading level 7', doc({ type: 'heading', attrs: { level: 7 }, content: [] }), ['/content/0/attrs/level']],
    ['a heading level "2"', doc({ type: 'heading', attrs: { level: '2' } }), ['/content/0/attrs/level']],
    ['a heading without attrs', doc({ type: 'heading', content: [text('a')] }), ['/content/0/attrs']],
    ['an empty text', doc(paragraph(text(''))), ['/content/0/content/0/text']],
    ['a line break in text', doc(paragraph(text('a\nb'))), ['/content/0/content/0/text']],
    ['a text that is a number', doc(paragraph({ type: 'text', text: 5 })), ['/content/0/content/0/text']],
    ['an unknown inline node', doc(paragraph({ type: 'mention', attrs: { id: 1 } })), ['/content/0/content/0/type']],
    ['a block inside a paragraph', doc(paragraph(paragraph())), ['/content/0/content/0/type']],
    ['an unknown mark', doc(paragraph(text('a', [{ type: 'highlight' }]))), ['/content/0/content/0/marks/0']],
    ['a mark twice', doc(paragraph(text('a', [{ type: 'bold' }, { type: 'bold' }]))), ['/content/0/content/0/marks/1']],
    ['a mark with attrs', doc(paragraph(text('a', [{ type: 'bold', attrs: {} }]))), ['/content/0/content/0/marks/0/attrs']],
    ['marks that are not an array', doc(paragraph(text('a', { bold: true } as unknown as unknown[]))), ['/content/0/content/0/marks']],
    [
      'a javascript: link',
      doc(paragraph(text('a', [{ type: 'link', attrs: { href: 'javascript:alert(1)' } }]))),
      ['/content/0/content/0/marks/0/attrs/href'],
    ],
    ['a link without href', doc(paragraph(text('a', [{ type: 'link', attrs: {} }]))), ['/content/0/content/0/marks/0/attrs/href']],
    ['a link without attrs', doc(paragraph(text('a', [{ type: 'link' }]))), ['/content/0/content/0/marks/0/attrs']],
    [
      'a link with an unknown attr',
      doc(paragraph(text('a', [{ type: 'link', attrs: { href: '/a', class: 'x' } }]))),
      ['/content/0/content/0/marks/0/attrs/class'],
    ],
    [
      'a link with a null target',
      doc(paragraph(text('a', [{ type: 'link', attrs: { href: '/a', target: null } }]))),
      ['/content/0/content/0/marks/0/attrs/target'],
    ],
    [
      'two paragraphs in a blockquote',
      doc({ type: 'blockquote', content: [paragraph(text('a')), paragraph(text('b'))] }),
      ['/content/0/content'],
    ],
    ['an empty blockquote', doc({ type: 'blockquote', content: [] }), ['/content/0/content']],
    [
      'a heading in a blockquote',
      doc({ type: 'blockquote', content: [{ type: 'heading', attrs: { level: 1 } }] }),
      ['/content/0/content/0'],
    ],
    ['a hardBreak in code', doc({ type: 'codeBlock', content: [text('a'), { type: 'hardBreak' }] }), ['/content/0/content/1/type']],
    [
      'a link in code',
      doc({ type: 'codeBlock', content: [text('a', [{ type: 'link', attrs: { href: '/a' } }])] }),
      ['/content/0/content/0/marks/0'],
    ],
    ['a numeric code language', doc({ type: 'codeBlock', attrs: { language: 1 } }), ['/content/0/attrs/language']],
    ['an empty list', doc({ type: 'bulletList', content: [] }), ['/content/0/content']],
    ['a list without content', doc({ type: 'bulletList' }), ['/content/0/content']],
    ['a paragraph directly in a list', doc({ type: 'bulletList', content: [paragraph(text('a'))] }), ['/content/0/content/0/type']],
    ['an empty list item', doc({ type: 'bulletList', content: [{ type: 'listItem', content: [] }] }), ['/content/0/content/0/content']],
    [
      'two paragraphs in a list item',
      doc({ type: 'bulletList', content: [{ type: 'listItem', content: [paragraph(), paragraph()] }] }),
      ['/content/0/content/0/content/1/type'],
    ],
    [
      'a heading in a list item',
      doc({ type: 'bulletList', content: [{ type: 'listItem', content: [{ type: 'heading', attrs: { level: 1 } }] }] }),
      ['/content/0/content/0/content/0/type'],
    ],
    [
      'a start attribute',
      doc({ type: 'orderedList', attrs: { start: 3 }, content: [{ type: 'listItem', content: [paragraph()] }] }),
      ['/content/0/attrs/start'],
    ],
    [
      'a negative level',
      doc({ type: 'orderedList', attrs: { indentLevel: -1 }, content: [{ type: 'listItem', content: [paragraph()] }] }),
      ['/content/0/attrs/indentLevel'],
    ],
    ['an image of an unknown asset', doc({ type: 'image', attrs: { id: 'nope' } }), ['/content/0/attrs']],
    ['an image without attrs', doc({ type: 'image' }), ['/content/0/attrs']],
    ['an image with content', doc({ type: 'image', attrs: { id: 'file1' }, content: [] }), ['/content/0/content']],
    ['a member named with / and ~', { type: 'doc', content: [], 'a/b~c': 1 }, ['/a~1b~0c']],
  ])('points at %s', (_, input, expected) => {
    expect(pointers(input)).toEqual(expected);
  });

  it('reports every invalid node, each once, with the message saying why', () => {
    const issues = issuesOf(
      doc(
        paragraph(text('ok'), text(''), text('x', [{ type: 'shout' }])),
        { type: 'heading', attrs: { level: 0 }, content: [text('fine')] },
        { type: 'bulletList', content: [{ type: 'listItem', content: [paragraph(text('a\nb'))] }] },
        { type: 'image', attrs: { id: 'missing' } },
      ),
    );
    expect(issues).toEqual([
      { pointer: '/content/0/content/1/text', message: 'A text node holds a non-empty string.' },
      { pointer: '/content/0/content/2/marks/0', message: 'Unknown mark; expected bold, italic, underline, strike, code or link.' },
      { pointer: '/content/1/attrs/level', message: 'A heading level is an integer from 1 to 6.' },
      { pointer: '/content/2/content/0/content/0/content/0/text', message: 'A line break is a hardBreak node, not "\\n" in the text.' },
      { pointer: '/content/3/attrs', message: 'No such asset.' },
    ]);
  });

  it('prefixes the pointer of the document in the request', () => {
    expect(pointers(doc({ type: 'table' }), '/data/attributes/body')).toEqual(['/data/attributes/body/content/0/type']);
    expect(pointers(42, '/data/attributes/body')).toEqual(['/data/attributes/body']);
  });

  it('refuses lists nested deeper than the limit without recursing further', () => {
    let node: object = { type: 'bulletList', content: [{ type: 'listItem', content: [paragraph(text('deep'))] }] };
    for (let level = 0; level < MAX_LIST_DEPTH; level += 1) node = { type: 'bulletList', content: [{ type: 'listItem', content: [node] }] };
    const issues = issuesOf(doc(node));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toBe(`Lists nest at most ${MAX_LIST_DEPTH} levels deep.`);
    let within: object = { type: 'bulletList', content: [{ type: 'listItem', content: [paragraph(text('deep'))] }] };
    for (let level = 1; level < MAX_LIST_DEPTH; level += 1)
      within = { type: 'bulletList', content: [{ type: 'listItem', content: [within] }] };
    expectStrapiAccepts(blocksOf(doc(within)));
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 6 }), fc.jsonValue({ maxDepth: 6 }), (anything, json) => {
        for (const input of [
          anything,
          json,
          { type: 'doc', content: [anything, json] },
          doc(paragraph(anything)),
          doc({ type: 'bulletList', content: [json] }),
        ]) {
          const result = toBlocks(input);
          if (result.ok) expectStrapiAccepts(result.blocks);
          else for (const issue of result.issues) expect(issue.pointer === '' || issue.pointer.startsWith('/')).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
