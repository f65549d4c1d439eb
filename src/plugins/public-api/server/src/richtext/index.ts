/**
 * Strapi blocks <-> the contract's richtext document (contract section 2). Pure: images are assets, and
 * the caller injects how an image block becomes node attrs and back. One job per file: the two formats'
 * types (blocks.ts, doc.ts), what both directions share (vocabulary.ts), blocks -> doc (to-doc.ts),
 * doc -> blocks (to-blocks.ts) and Strapi's normal form (normal-form.ts).
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
export type * from './blocks';
export type * from './doc';
export { isValidLinkUrl } from './vocabulary';
export { blocksToDoc, type BlocksToDocOptions } from './to-doc';
export {
  MAX_LIST_DEPTH,
  docToBlocks,
  imageAttrsOf,
  type DocToBlocksOptions,
  type DocToBlocksResult,
  type ImageLookup,
  type RichtextIssue,
} from './to-blocks';
