/**
 * The richtext document -> Strapi blocks (writes): strict reading, every problem reported with a pointer.
 * Unknown node types, members, attrs and marks are refused rather than dropped. Pure: the caller looks
 * images up by asset id.
 *
 * Longer than 300 lines on purpose: it is one reader of one grammar, a method per node type and mark of
 * the document (richtext/doc.ts), each calling the others as the nodes nest. Split, each half would need
 * the other's methods and the issue list they share.
 */
import type {
  BlocksBlock,
  BlocksCode,
  BlocksHeading,
  BlocksImage,
  BlocksImageFile,
  BlocksInline,
  BlocksList,
  BlocksListItem,
  BlocksQuote,
  BlocksValue,
  HeadingLevel,
} from './blocks';
import type { ImageAttrs, LinkAttrs } from './doc';
import { emptyText, inlineFromRuns, joinTexts, type Run } from './normal-form';
import { FORMATS, defaultIndentLevel, isValidLinkUrl, type FormatFlag } from './vocabulary';

export type ImageLookup = { ok: true; file: BlocksImageFile } | { ok: false; message: string };

export type DocToBlocksOptions = {
  /** Image node attrs -> the upload file to store (looked up by asset id), or why there is none. */
  attrsToImage: (attrs: ImageAttrs) => ImageLookup;
  /** JSON pointer of the document in the request, prefixed to every issue, e.g. `/data/attributes/body`. */
  pointer?: string;
};

export type RichtextIssue = { pointer: string; message: string };

export type DocToBlocksResult = { ok: true; blocks: BlocksValue } | { ok: false; issues: RichtextIssue[] };

/** Lists may nest this deep; deeper input is refused rather than recursed into. */
export const MAX_LIST_DEPTH = 16;

type UnknownRecord = { [key: string]: unknown };

const isRecord = (value: unknown): value is UnknownRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

const pointerTo = (base: string, ...keys: (string | number)[]) =>
  keys.reduce<string>((pointer, key) => `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`, base);

/** Reads a document node by node, collecting every issue with its pointer. */
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
          `Unknown block type ${JSON.stringify(node.type)}; expected paragraph, heading, blockquote, codeBlock, bulletList, orderedList or image.`,
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
      else if (given !== undefined)
        this.issue(pointerTo(pointer, 'attrs', 'indentLevel'), 'An indent level is a non-negative integer or null.');
    }
    const content = this.content(node, pointer, true);
    if (content.length === 0 && Array.isArray(node.content))
      this.issue(pointerTo(pointer, 'content'), 'A list holds at least one listItem.');
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
        'A listItem holds one paragraph, first, then only bulletList or orderedList nodes.',
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
    for (const [name, value] of [
      ['rel', rel],
      ['target', target],
    ] as const) {
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
