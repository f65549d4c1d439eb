/**
 * Strapi `blocks` content, built from small helpers so seed text reads like the page it becomes.
 */
export type TextNode = {
  type: 'text';
  text: string;
  bold?: true;
  italic?: true;
  underline?: true;
  strikethrough?: true;
  code?: true;
};
export type LinkNode = { type: 'link'; url: string; children: TextNode[] };
export type InlineNode = TextNode | LinkNode;
export type ListItemNode = { type: 'list-item'; children: InlineNode[] };
export type BlockNode =
  | { type: 'paragraph'; children: InlineNode[] }
  | { type: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; children: InlineNode[] }
  | { type: 'list'; format: 'ordered' | 'unordered'; children: ListItemNode[] }
  | { type: 'quote'; children: InlineNode[] }
  | { type: 'code'; language?: string; children: TextNode[] };
export type Blocks = BlockNode[];

type Inline = InlineNode | string;
const inline = (part: Inline): InlineNode => (typeof part === 'string' ? { type: 'text', text: part } : part);

export const text = (value: string): TextNode => ({ type: 'text', text: value });
export const bold = (value: string): TextNode => ({ type: 'text', text: value, bold: true });
export const italic = (value: string): TextNode => ({ type: 'text', text: value, italic: true });
export const underline = (value: string): TextNode => ({ type: 'text', text: value, underline: true });
export const struck = (value: string): TextNode => ({ type: 'text', text: value, strikethrough: true });
export const code = (value: string): TextNode => ({ type: 'text', text: value, code: true });
export const link = (url: string, label: string): LinkNode => ({ type: 'link', url, children: [text(label)] });

export const paragraph = (...parts: Inline[]): BlockNode => ({ type: 'paragraph', children: parts.map(inline) });
export const heading = (level: 1 | 2 | 3 | 4 | 5 | 6, title: string): BlockNode => ({ type: 'heading', level, children: [text(title)] });
export const quote = (...parts: Inline[]): BlockNode => ({ type: 'quote', children: parts.map(inline) });
export const codeBlock = (source: string, language?: string): BlockNode => ({
  type: 'code',
  ...(language ? { language } : {}),
  children: [text(source)],
});
const list = (format: 'ordered' | 'unordered', items: Array<Inline | Inline[]>): BlockNode => ({
  type: 'list',
  format,
  children: items.map((item) => ({ type: 'list-item', children: (Array.isArray(item) ? item : [item]).map(inline) })),
});
export const bulletList = (...items: Array<Inline | Inline[]>): BlockNode => list('unordered', items);
export const numberedList = (...items: Array<Inline | Inline[]>): BlockNode => list('ordered', items);
