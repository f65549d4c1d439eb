/**
 * Strapi blocks -> the richtext document (reads). Pure: the caller decides what an image node says about
 * its asset. A corrupt stored value loses the node it cannot read, never the read.
 */
import type {
  BlockNode,
  CodeBlockNode,
  HardBreakNode,
  HeadingNode,
  ImageAttrs,
  InlineNode,
  ListItemNode,
  ListNode,
  Mark,
  ParagraphNode,
  RichtextDoc,
  TextNode,
} from './doc';
import type { BlocksBlock, BlocksImageFile, BlocksInline, BlocksList, BlocksLink, BlocksText, BlocksValue } from './blocks';
import { FORMATS, asArray, defaultIndentLevel } from './vocabulary';

export type BlocksToDocOptions = {
  /** An image block's upload file -> the image node's attrs (e.g. the asset object with its stable URL). */
  imageToAttrs: (file: BlocksImageFile) => ImageAttrs;
};

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
    }),
  );

/** Code keeps its line breaks inside the text, as ProseMirror's codeBlock does. */
const codeToNodes = (children: BlocksText[]): TextNode[] =>
  joinTextNodes(
    asArray(children)
      .filter((child) => child?.type === 'text' && typeof child.text === 'string' && child.text !== '')
      .map((child) => withMarks<TextNode>({ type: 'text', text: child.text }, marksOf(child, null))),
  );

const withContent = <T extends object, C>(node: T, content: C[]): T & { content?: C[] } => (content.length ? { ...node, content } : node);

const listToNode = (list: BlocksList, parentLevel: number | undefined, nested: boolean): ListNode => {
  const items: ListItemNode[] = [];
  for (const child of asArray(list.children)) {
    if (child?.type === 'list-item') {
      items.push({
        type: 'listItem',
        content: [withContent<ParagraphNode, InlineNode>({ type: 'paragraph' }, inlineToNodes(child.children))],
      });
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
      return {
        type: 'blockquote',
        content: [withContent<ParagraphNode, InlineNode>({ type: 'paragraph' }, inlineToNodes(block.children))],
      };
    case 'code':
      return withContent<CodeBlockNode, TextNode>(
        { type: 'codeBlock', ...('language' in block ? { attrs: { language: block.language ?? null } } : {}) },
        codeToNodes(block.children),
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
