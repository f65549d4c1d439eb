/**
 * Strapi's blocks value, as Strapi stores it (node_modules/@strapi/types .../blocks.d.ts, validated by
 * @strapi/core's blocks-validator). Types only.
 */
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
