/**
 * The contract's richtext document (contract section 2): a ProseMirror-style `doc`. Types only.
 */
import type { HeadingLevel } from './blocks';

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
