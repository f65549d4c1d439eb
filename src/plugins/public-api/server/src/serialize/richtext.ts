/**
 * Strapi blocks <-> the contract's richtext document (contract section 2). Pure: images are assets, and
 * the caller injects how an image block becomes node attrs and back.
 *
 * Mapping
 *   paragraph            <-> paragraph
 *   heading (level)      <-> heading { attrs.level }
 *   quote                <-> blockquote [ paragraph ]
 *   code (language)      <-> codeBlock { attrs.language }    ("\n" stays inside the text)
 *   list (format)        <-> bulletList | orderedList [ listItem ]
 *   list-item            <-> listItem [ paragraph ]
 *   nested list          <-> a list inside the listItem it follows
 *   image (upload file)  <-> image { attrs: imageToAttrs(file) }
 *   text flags           <-> marks bold, italic, underline, strike (strikethrough), code
 *   link (url, rel, target) around texts <-> a link mark { href, rel, target } on each of them
 *   "\n" in a text       <-> hardBreak, carrying the marks of its text
 *
 * Round trip. blocks -> doc -> blocks gives back the value in the normal form the Strapi editor (Slate)
 * keeps anyway, so an editor-saved value comes back unchanged and any other valid value comes back with
 * the same text, marks, links and structure. The normal form:
 *   - text nodes hold no `false` flags, and empty text nodes only where Slate needs one: as the only
 *     child of an empty block, and before, between and after links; those carry no marks;
 *   - adjacent text nodes with the same marks are one node, adjacent links to the same url, rel and
 *     target are one link, and links without text are dropped (nothing of them is visible);
 *   - an image block's children are the one empty text Slate requires of a void block.
 * The document side likewise joins adjacent text nodes with equal marks (ProseMirror does the same).
 * Attributes are written only when they differ from the default: `codeBlock.attrs` only when the block
 * has a `language` (null included); a list's `attrs.indentLevel` only when it is not what the editor
 * would set (none at the top, the parent's level + 1 when nested), and then as a number, or null for none.
 * A list that starts with a nested list becomes a listItem without a paragraph.
 */

// ---------------------------------------------------------------------------------------------------------
// Strapi blocks (node_modules/@strapi/types .../blocks.d.ts, validated by @strapi/core's blocks-validator)
// ---------------------------------------------------------------------------------------------------------

export type HeadingLevel = 1 | 2 | 3 | 4 | 5 | 6;

export type BlocksText = {
  type: 'text';
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  code?: boolean;
};

export type BlocksLink = { type: 'link'; url: string; children: BlocksText[]; rel?: string; target?: string };
export type BlocksInline = BlocksText | BlocksLink;

/** The upload file Strapi stores inside an image block; carried as is. */
export type BlocksImageFile = { [key: string]: unknown };

export type BlocksParagraph = { type: 'paragraph'; children: BlocksInline[] };
export type BlocksHeading = { type: 'heading'; level: HeadingLevel; children: BlocksInline[] };
export type BlocksQuote = { type: 'quote'; children: BlocksInline[] };
export type BlocksCode = { type: 'code'; language?: string | null; children: BlocksText[] };
export type BlocksListItem = { type: 'list-item'; children: BlocksInline[] };
export type BlocksList = {
  type: 'list';
  format: 'ordered' | 'unordered';
  indentLevel?: number;
  children: (BlocksListItem | BlocksList)[];
};
export type BlocksImage = { type: 'image'; image: BlocksImageFile; children: BlocksInline[] };

export type BlocksBlock = BlocksParagraph | BlocksHeading | BlocksQuote | BlocksCode | BlocksList | BlocksImage;
export type BlocksValue = BlocksBlock[];

// ---------------------------------------------------------------------------------------------------------
// The richtext document
// ---------------------------------------------------------------------------------------------------------

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** What an image node says about its asset; decided by the caller (e.g. the asset object). */
export type ImageAttrs = { [key: string]: JsonValue };

export type FormatMarkType = 'bold' | 'italic' | 'underline' | 'strike' | 'code';
export type LinkAttrs = { href: string; rel?: string; target?: string };
export type Mark = { type: FormatMarkType } | { type: 'link'; attrs: LinkAttrs };

export type TextNode = { type: 'text'; text: string; marks?: Mark[] };
export type HardBreakNode = { type: 'hardBreak'; marks?: Mark[] };
export type InlineNode = TextNode | HardBreakNode;

export type ParagraphNode = { type: 'paragraph'; content?: InlineNode[] };
export type HeadingNode = { type: 'heading'; attrs: { level: HeadingLevel }; content?: InlineNode[] };
export type BlockquoteNode = { type: 'blockquote'; content: [ParagraphNode] };
export type CodeBlockNode = { type: 'codeBlock'; attrs?: { language: string | null }; content?: TextNode[] };
export type ListAttrs = { indentLevel: number | null };
export type ListNode = { type: 'bulletList' | 'orderedList'; attrs?: ListAttrs; content: ListItemNode[] };
export type ListItemNode = { type: 'listItem'; content: (ParagraphNode | ListNode)[] };
export type ImageNode = { type: 'image'; attrs: ImageAttrs };

export type BlockNode = ParagraphNode | HeadingNode | BlockquoteNode | CodeBlockNode | ListNode | ImageNode;
export type RichtextDoc = { type: 'doc'; content: BlockNode[] };

// ---------------------------------------------------------------------------------------------------------
// Options and results
// ---------------------------------------------------------------------------------------------------------

export type BlocksToDocOptions = {
  /** An image block's upload file -> the image node's attrs (e.g. the asset object with its stable URL). */
  imageToAttrs: (file: BlocksImageFile) => ImageAttrs;
};

export type ImageLookup = { ok: true; file: BlocksImageFile } | { ok: false; message: string };

export type DocToBlocksOptions = {
  /** Image node attrs -> the upload file to store (looked up by asset id), or why there is none. */
  attrsToImage: (attrs: ImageAttrs) => ImageLookup;
  /** JSON pointer of the document in the request, prefixed to every issue, e.g. `/data/attributes/body`. */
  pointer?: string;
};

export type RichtextIssue = { pointer: string; message: string };

export type DocToBlocksResult = { ok: true; blocks: BlocksValue } | { ok: false; issues: RichtextIssue[] };

// ---------------------------------------------------------------------------------------------------------
// Shared vocabulary
// ---------------------------------------------------------------------------------------------------------

type FormatFlag = 'bold' | 'italic' | 'underline' | 'strikethrough' | 'code';

/** Mark type <-> Strapi flag, in the order marks are written. */
const FORMATS: readonly (readonly [FormatMarkType, FormatFlag])[] = [
  ['bold', 'bold'],
  ['italic', 'italic'],
  ['underline', 'underline'],
  ['strike', 'strikethrough'],
  ['code', 'code'],
];

const LINK_PROTOCOLS = new Set(['http:', 'https:', 'ftp:', 'mailto:', 'tel:']);

/** The same test Strapi's blocks validator applies to a link's url. */
export const isValidLinkUrl = (url: string): boolean => {
  try {
    return LINK_PROTOCOLS.has(new URL(url.startsWith('/') ? `https://strapi.io${url}` : url).protocol);
  } catch {
    return false;
  }
};

/** Where a nested list's level starts when the document does not say: where the admin puts it. */
const defaultIndentLevel = (parentLevel: number | undefined, nested: boolean): number | undefined =>
  nested ? (parentLevel ?? 0) + 1 : undefined;

const asArray = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);

// ---------------------------------------------------------------------------------------------------------
// blocks -> doc
// ---------------------------------------------------------------------------------------------------------

const linkMark = (link: BlocksLink): Mark => ({
  type: 'link',
  attrs: {
    href: link.url,
    ...(typeof link.rel === 'string' ? { rel: link.rel } : {}),
    ...(typeof link.target === 'string' ? { target: link.target } : {}),
  },
});

const marksOf = (text: BlocksText, link: BlocksLink | null): Mark[] => [
  ...FORMATS.filter(([, flag]) => text[flag] === true).map(([type]): Mark => ({ type })),
  ...(link ? [linkMark(link)] : []),
];

const withMarks = <T extends InlineNode>(node: T, marks: Mark[]): T => (marks.length ? { ...node, marks } : node);

/** One Strapi text -> text nodes and hardBreaks; empty pieces vanish (ProseMirror has no empty text). */
const textToNodes = (text: BlocksText, link: BlocksLink | null): InlineNode[] =>
  String(text.text ?? '')
    .split('\n')
    .flatMap((piece, index): InlineNode[] => [
      ...(index > 0 ? [withMarks<HardBreakNode>({ type: 'hardBreak' }, marksOf(text, link))] : []),
      ...(piece ? [withMarks<TextNode>({ type: 'text', text: piece }, marksOf(text, link))] : []),
    ]);

const sameMarks = (a: Mark[] = [], b: Mark[] = []) => JSON.stringify(a) === JSON.stringify(b);

/** Neighbouring text nodes with equal marks are one node, as ProseMirror keeps them. */
const joinTextNodes = <T extends InlineNode>(nodes: T[]): T[] =>
  nodes.reduce<T[]>((joined, node) => {
    const previous = joined.at(-1);
    if (previous?.type === 'text' && node.type === 'text' && sameMarks(previous.marks, node.marks)) {
      joined[joined.length - 1] = { ...previous, text: previous.text + node.text };
    } else {
      joined.push(node);
    }
    return joined;
  }, []);

const inlineToNodes = (children: BlocksInline[]): InlineNode[] =>
  joinTextNodes(
    asArray(children).flatMap((child) => {
      if (child?.type === 'text') return textToNodes(child, null);
      if (child?.type === 'link') return asArray(child.children).flatMap((text) => textToNodes(text, child));
      return [];
    })
  );

/** Code keeps its line breaks inside the text, as ProseMirror's codeBlock does. */
const codeToNodes = (children: BlocksText[]): TextNode[] =>
  joinTextNodes(
    asArray(children)
      .filter((child) => child?.type === 'text' && typeof child.text === 'string' && child.text !== '')
      .map((child) => withMarks<TextNode>({ type: 'text', text: child.text }, marksOf(child, null)))
  );

const withContent = <T extends object, C>(node: T, content: C[]): T & { content?: C[] } =>
  content.length ? { ...node, content } : node;

const listToNode = (list: BlocksList, parentLevel: number | undefined, nested: boolean): ListNode => {
  const items: ListItemNode[] = [];
  for (const child of asArray(list.children)) {
    if (child?.type === 'list-item') {
      items.push({ type: 'listItem', content: [withContent<ParagraphNode, InlineNode>({ type: 'paragraph' }, inlineToNodes(child.children))] });
    } else if (child?.type === 'list') {
      // A nested list belongs to the item before it; with none, it opens an item of its own.
      const nestedNode = listToNode(child, list.indentLevel, true);
      const previous = items.at(-1);
      if (previous) previous.content.push(nestedNode);
      else items.push({ type: 'listItem', content: [nestedNode] });
    }
  }
  const level = list.indentLevel;
  return {
    type: list.format === 'ordered' ? 'orderedList' : 'bulletList',
    ...(level === defaultIndentLevel(parentLevel, nested) ? {} : { attrs: { indentLevel: level ?? null } }),
    content: items,
  };
};

const blockToNode = (block: BlocksBlock, options: BlocksToDocOptions): BlockNode | null => {
  switch (block?.type) {
    case 'paragraph':
      return withContent<ParagraphNode, InlineNode>({ type: 'paragraph' }, inlineToNodes(block.children));
    case 'heading':
      return withContent<HeadingNode, InlineNode>({ type: 'heading', attrs: { level: block.level } }, inlineToNodes(block.children));
    case 'quote':
      return { type: 'blockquote', content: [withContent<ParagraphNode, InlineNode>({ type: 'paragraph' }, inlineToNodes(block.children))] };
    case 'code':
      return withContent<CodeBlockNode, TextNode>(
        { type: 'codeBlock', ...('language' in block ? { attrs: { language: block.language ?? null } } : {}) },
        codeToNodes(block.children)
      );
    case 'list':
      return listToNode(block, undefined, false);
    case 'image':
      return { type: 'image', attrs: options.imageToAttrs(block.image) };
    default:
      // Strapi's validator admits nothing else; a corrupt stored value loses the node, not the read.
      return null;
  }
};

export const blocksToDoc = (blocks: BlocksValue, options: BlocksToDocOptions): RichtextDoc => ({
  type: 'doc',
  content: asArray(blocks)
    .map((block) => blockToNode(block, options))
    .filter((node): node is BlockNode => node !== null),
});

// ---------------------------------------------------------------------------------------------------------
// doc -> blocks: strict reading, every problem reported with a pointer
// ---------------------------------------------------------------------------------------------------------

/** Lists may nest this deep; deeper input is refused rather than recursed into. */
export const MAX_LIST_DEPTH = 16;

type UnknownRecord = { [key: string]: unknown };

const isRecord = (value: unknown): value is UnknownRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const pointerTo = (base: string, ...keys: (string | number)[]) =>
  keys.reduce<string>((pointer, key) => `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`, base);

/** A run of text with its marks: the unit both sides are built from. */
type Run = { text: string; flags: ReadonlySet<FormatFlag>; link: LinkAttrs | null };

class Reader {
  readonly issues: RichtextIssue[] = [];

  constructor(private readonly options: DocToBlocksOptions) {}

  issue(pointer: string, message: string): void {
    this.issues.push({ pointer, message });
  }

  /** Reports members outside `allowed`; false when `node` is not an object at all. */
  object(node: unknown, pointer: string, what: string, allowed: readonly string[]): node is UnknownRecord {
    if (!isRecord(node)) {
      this.issue(pointer, `Expected ${what} (an object).`);
      return false;
    }
    for (const key of Object.keys(node)) {
      if (!allowed.includes(key)) this.issue(pointerTo(pointer, key), `Unknown member '${key}' of ${what}.`);
    }
    return true;
  }

  /** `content` as an array (absent is empty unless required). */
  content(node: UnknownRecord, pointer: string, required: boolean): unknown[] {
    if (node.content === undefined && !required) return [];
    if (!Array.isArray(node.content)) {
      this.issue(pointerTo(pointer, 'content'), 'Expected an array of nodes.');
      return [];
    }
    return node.content;
  }

  doc(value: unknown, pointer: string): BlocksValue {
    if (!this.object(value, pointer, "a richtext document ({ type: 'doc', content: [...] })", ['type', 'content'])) return [];
    if (value.type !== 'doc') this.issue(pointerTo(pointer, 'type'), "A richtext document has type 'doc'.");
    return this.content(value, pointer, true).flatMap((node, index) => {
      const block = this.block(node, pointerTo(pointer, 'content', index));
      return block ? [block] : [];
    });
  }

  block(node: unknown, pointer: string): BlocksBlock | null {
    if (!isRecord(node)) {
      this.issue(pointer, 'Expected a block node (an object).');
      return null;
    }
    switch (node.type) {
      case 'paragraph':
        return this.object(node, pointer, 'a paragraph', ['type', 'content'])
          ? { type: 'paragraph', children: this.inline(this.content(node, pointer, false), pointer) }
          : null;
      case 'heading':
        return this.heading(node, pointer);
      case 'blockquote':
        return this.blockquote(node, pointer);
      case 'codeBlock':
        return this.codeBlock(node, pointer);
      case 'bulletList':
      case 'orderedList':
        return this.list(node, pointer, undefined, false, 1);
      case 'image':
        return this.image(node, pointer);
      default:
        this.issue(
          pointerTo(pointer, 'type'),
          `Unknown block type ${JSON.stringify(node.type)}; expected paragraph, heading, blockquote, codeBlock, bulletList, orderedList or image.`
        );
        return null;
    }
  }

  heading(node: UnknownRecord, pointer: string): BlocksHeading | null {
    this.object(node, pointer, 'a heading', ['type', 'attrs', 'content']);
    let level: HeadingLevel = 1;
    if (this.object(node.attrs, pointerTo(pointer, 'attrs'), 'heading attrs', ['level'])) {
      const given = (node.attrs as UnknownRecord).level;
      if (typeof given === 'number' && Number.isInteger(given) && given >= 1 && given <= 6) level = given as HeadingLevel;
      else this.issue(pointerTo(pointer, 'attrs', 'level'), 'A heading level is an integer from 1 to 6.');
    }
    return { type: 'heading', level, children: this.inline(this.content(node, pointer, false), pointer) };
  }

  blockquote(node: UnknownRecord, pointer: string): BlocksQuote | null {
    this.object(node, pointer, 'a blockquote', ['type', 'content']);
    const content = this.content(node, pointer, true);
    if (content.length !== 1) {
      this.issue(pointerTo(pointer, 'content'), 'A blockquote holds exactly one paragraph (use hardBreak for lines).');
    }
    const [paragraph] = content;
    const paragraphPointer = pointerTo(pointer, 'content', 0);
    if (paragraph === undefined) return null;
    if (!isRecord(paragraph) || paragraph.type !== 'paragraph') {
      this.issue(paragraphPointer, 'A blockquote holds a paragraph.');
      return null;
    }
    this.object(paragraph, paragraphPointer, 'a paragraph', ['type', 'content']);
    return { type: 'quote', children: this.inline(this.content(paragraph, paragraphPointer, false), paragraphPointer) };
  }

  codeBlock(node: UnknownRecord, pointer: string): BlocksCode {
    this.object(node, pointer, 'a codeBlock', ['type', 'attrs', 'content']);
    const code: BlocksCode = { type: 'code', children: [] };
    if (node.attrs !== undefined && this.object(node.attrs, pointerTo(pointer, 'attrs'), 'codeBlock attrs', ['language'])) {
      const language = (node.attrs as UnknownRecord).language;
      if (typeof language === 'string' || language === null) code.language = language;
      else this.issue(pointerTo(pointer, 'attrs', 'language'), 'A code language is a string or null.');
    }
    const runs = this.content(node, pointer, false).flatMap((child, index) => {
      const childPointer = pointerTo(pointer, 'content', index);
      if (isRecord(child) && child.type !== 'text') {
        this.issue(pointerTo(childPointer, 'type'), 'A codeBlock holds only text nodes; a line break is "\\n" in the text.');
        return [];
      }
      const run = this.inlineNode(child, childPointer, true);
      return run ? [run] : [];
    });
    code.children = joinTexts(runs);
    return code;
  }

  list(node: UnknownRecord, pointer: string, parentLevel: number | undefined, nested: boolean, depth: number): BlocksList | null {
    this.object(node, pointer, `a ${String(node.type)}`, ['type', 'attrs', 'content']);
    if (depth > MAX_LIST_DEPTH) {
      this.issue(pointer, `Lists nest at most ${MAX_LIST_DEPTH} levels deep.`);
      return null;
    }
    let level = defaultIndentLevel(parentLevel, nested);
    if (node.attrs !== undefined && this.object(node.attrs, pointerTo(pointer, 'attrs'), 'list attrs', ['indentLevel'])) {
      const given = (node.attrs as UnknownRecord).indentLevel;
      if (given === null) level = undefined;
      else if (typeof given === 'number' && Number.isInteger(given) && given >= 0) level = given;
      else if (given !== undefined) this.issue(pointerTo(pointer, 'attrs', 'indentLevel'), 'An indent level is a non-negative integer or null.');
    }
    const content = this.content(node, pointer, true);
    if (content.length === 0 && Array.isArray(node.content)) this.issue(pointerTo(pointer, 'content'), 'A list holds at least one listItem.');
    const children = content.flatMap((item, index) => this.listItem(item, pointerTo(pointer, 'content', index), level, depth));
    return {
      type: 'list',
      format: node.type === 'orderedList' ? 'ordered' : 'unordered',
      ...(level === undefined ? {} : { indentLevel: level }),
      children,
    };
  }

  /** A listItem: an optional leading paragraph (the list-item) and then nested lists. */
  listItem(node: unknown, pointer: string, level: number | undefined, depth: number): (BlocksListItem | BlocksList)[] {
    if (!this.object(node, pointer, 'a listItem', ['type', 'content'])) return [];
    if (node.type !== 'listItem') {
      this.issue(pointerTo(pointer, 'type'), 'A list holds listItem nodes.');
      return [];
    }
    const content = this.content(node, pointer, true);
    if (content.length === 0 && Array.isArray(node.content)) {
      this.issue(pointerTo(pointer, 'content'), 'A listItem holds a paragraph, nested lists, or both.');
    }
    return content.flatMap((child, index): (BlocksListItem | BlocksList)[] => {
      const childPointer = pointerTo(pointer, 'content', index);
      const type = isRecord(child) ? child.type : undefined;
      if (type === 'paragraph' && index === 0) {
        this.object(child, childPointer, 'a paragraph', ['type', 'content']);
        return [{ type: 'list-item', children: this.inline(this.content(child as UnknownRecord, childPointer, false), childPointer) }];
      }
      if (type === 'bulletList' || type === 'orderedList') {
        const list = this.list(child as UnknownRecord, childPointer, level, true, depth + 1);
        return list ? [list] : [];
      }
      this.issue(
        isRecord(child) ? pointerTo(childPointer, 'type') : childPointer,
        'A listItem holds one paragraph, first, then only bulletList or orderedList nodes.'
      );
      return [];
    });
  }

  image(node: UnknownRecord, pointer: string): BlocksImage | null {
    this.object(node, pointer, 'an image', ['type', 'attrs']);
    const attrsPointer = pointerTo(pointer, 'attrs');
    if (!isRecord(node.attrs)) {
      this.issue(attrsPointer, 'An image names its asset in attrs (an object).');
      return null;
    }
    const lookup = this.options.attrsToImage(node.attrs as ImageAttrs);
    if (!lookup.ok) {
      this.issue(attrsPointer, lookup.message);
      return null;
    }
    return { type: 'image', image: lookup.file, children: [emptyText()] };
  }

  /** Inline content of a paragraph, heading, quote or list item -> Strapi inline children. */
  inline(content: unknown[], pointer: string): BlocksInline[] {
    const runs = content.flatMap((child, index) => {
      const run = this.inlineNode(child, pointerTo(pointer, 'content', index), false);
      return run ? [run] : [];
    });
    return inlineFromRuns(runs);
  }

  inlineNode(node: unknown, pointer: string, inCode: boolean): Run | null {
    if (!isRecord(node)) {
      this.issue(pointer, 'Expected an inline node (an object).');
      return null;
    }
    if (node.type === 'hardBreak') {
      this.object(node, pointer, 'a hardBreak', ['type', 'marks']);
      const marks = this.marks(node.marks, pointer, !inCode);
      return marks && { text: '\n', ...marks };
    }
    if (node.type !== 'text') {
      this.issue(pointerTo(pointer, 'type'), `Unknown inline type ${JSON.stringify(node.type)}; expected text or hardBreak.`);
      return null;
    }
    this.object(node, pointer, 'a text node', ['type', 'text', 'marks']);
    const marks = this.marks(node.marks, pointer, !inCode);
    const text = node.text;
    if (typeof text !== 'string' || text === '') {
      this.issue(pointerTo(pointer, 'text'), 'A text node holds a non-empty string.');
      return null;
    }
    if (!inCode && text.includes('\n')) {
      this.issue(pointerTo(pointer, 'text'), 'A line break is a hardBreak node, not "\\n" in the text.');
      return null;
    }
    return marks && { text, ...marks };
  }

  marks(marks: unknown, pointer: string, linkAllowed: boolean): Pick<Run, 'flags' | 'link'> | null {
    if (marks === undefined) return { flags: new Set(), link: null };
    const marksPointer = pointerTo(pointer, 'marks');
    if (!Array.isArray(marks)) {
      this.issue(marksPointer, 'Expected an array of marks.');
      return null;
    }
    const flags = new Set<FormatFlag>();
    const seen = new Set<string>();
    let link: LinkAttrs | null = null;
    let valid = true;
    marks.forEach((mark, index) => {
      const markPointer = pointerTo(marksPointer, index);
      const type = isRecord(mark) ? mark.type : undefined;
      const format = FORMATS.find(([markType]) => markType === type);
      if (!isRecord(mark) || (!format && type !== 'link')) {
        this.issue(markPointer, 'Unknown mark; expected bold, italic, underline, strike, code or link.');
        valid = false;
        return;
      }
      if (seen.has(String(type))) {
        this.issue(markPointer, `The mark '${String(type)}' is given twice.`);
        valid = false;
        return;
      }
      seen.add(String(type));
      if (format) {
        this.object(mark, markPointer, `a ${format[0]} mark`, ['type']);
        flags.add(format[1]);
        return;
      }
      if (!linkAllowed) {
        this.issue(markPointer, 'A codeBlock holds no links.');
        valid = false;
        return;
      }
      link = this.linkAttrs(mark, markPointer);
      if (!link) valid = false;
    });
    return valid ? { flags, link } : null;
  }

  linkAttrs(mark: UnknownRecord, pointer: string): LinkAttrs | null {
    this.object(mark, pointer, 'a link mark', ['type', 'attrs']);
    const attrsPointer = pointerTo(pointer, 'attrs');
    if (!this.object(mark.attrs, attrsPointer, 'link attrs', ['href', 'rel', 'target'])) return null;
    const { href, rel, target } = mark.attrs as UnknownRecord;
    let valid = true;
    if (typeof href !== 'string' || !isValidLinkUrl(href)) {
      this.issue(pointerTo(attrsPointer, 'href'), 'A link href is an http, https, ftp, mailto or tel URL, or a path starting with /.');
      valid = false;
    }
    for (const [name, value] of [['rel', rel], ['target', target]] as const) {
      if (value !== undefined && typeof value !== 'string') {
        this.issue(pointerTo(attrsPointer, name), `A link ${name} is a string.`);
        valid = false;
      }
    }
    if (!valid) return null;
    return {
      href: href as string,
      ...(rel !== undefined ? { rel: rel as string } : {}),
      ...(target !== undefined ? { target: target as string } : {}),
    };
  }
}

// ---------------------------------------------------------------------------------------------------------
// Runs -> Strapi's normal form
// ---------------------------------------------------------------------------------------------------------

const emptyText = (): BlocksText => ({ type: 'text', text: '' });

const sameFlags = (a: ReadonlySet<FormatFlag>, b: ReadonlySet<FormatFlag>) =>
  a.size === b.size && [...a].every((flag) => b.has(flag));

const sameLink = (a: LinkAttrs | null, b: LinkAttrs | null) =>
  a === b || (a !== null && b !== null && a.href === b.href && a.rel === b.rel && a.target === b.target);

const textOf = (run: Pick<Run, 'text' | 'flags'>): BlocksText => {
  const text: BlocksText = { type: 'text', text: run.text };
  for (const [, flag] of FORMATS) if (run.flags.has(flag)) text[flag] = true;
  return text;
};

/** Non-empty runs -> text nodes, neighbours with the same marks joined; one empty text when there is none. */
const joinTexts = (runs: readonly Pick<Run, 'text' | 'flags'>[]): BlocksText[] => {
  const joined: Pick<Run, 'text' | 'flags'>[] = [];
  for (const run of runs) {
    const previous = joined.at(-1);
    if (previous && sameFlags(previous.flags, run.flags)) joined[joined.length - 1] = { ...previous, text: previous.text + run.text };
    else joined.push(run);
  }
  return joined.length ? joined.map(textOf) : [emptyText()];
};

/**
 * Runs -> Strapi inline children in Slate's normal form: consecutive runs with one link become one link
 * node, and every link has a text node before and after it (empty where nothing else is).
 */
const inlineFromRuns = (runs: readonly Run[]): BlocksInline[] => {
  const groups: { link: LinkAttrs | null; runs: Run[] }[] = [];
  for (const run of runs) {
    const group = groups.at(-1);
    if (group && sameLink(group.link, run.link)) group.runs.push(run);
    else groups.push({ link: run.link, runs: [run] });
  }
  const children: BlocksInline[] = [];
  for (const { link, runs: grouped } of groups) {
    if (!link) {
      children.push(...joinTexts(grouped));
      continue;
    }
    if (children.at(-1)?.type !== 'text') children.push(emptyText());
    children.push({
      type: 'link',
      url: link.href,
      children: joinTexts(grouped),
      ...(link.rel !== undefined ? { rel: link.rel } : {}),
      ...(link.target !== undefined ? { target: link.target } : {}),
    });
  }
  if (children.at(-1)?.type !== 'text') children.push(emptyText());
  return children;
};

/**
 * A richtext document -> Strapi blocks, or every problem with a pointer (for a 422). The document is read
 * strictly: unknown node types, members, attrs and marks are refused rather than dropped.
 */
export const docToBlocks = (doc: unknown, options: DocToBlocksOptions): DocToBlocksResult => {
  const reader = new Reader(options);
  const blocks = reader.doc(doc, options.pointer ?? '');
  return reader.issues.length ? { ok: false, issues: reader.issues } : { ok: true, blocks };
};

/**
 * The attrs of every image node of an unchecked document, so that the caller can fetch the assets
 * before the synchronous `docToBlocks` looks them up.
 */
export const imageAttrsOf = (doc: unknown): ImageAttrs[] => {
  const found: ImageAttrs[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (!isRecord(node) || depth > MAX_LIST_DEPTH * 2 + 4) return;
    if (node.type === 'image' && isRecord(node.attrs)) found.push(node.attrs as ImageAttrs);
    if (Array.isArray(node.content)) for (const child of node.content) visit(child, depth + 1);
  };
  visit(doc, 0);
  return found;
};
