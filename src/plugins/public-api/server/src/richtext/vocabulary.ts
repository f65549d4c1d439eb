/**
 * What both directions of the richtext conversion share: marks and Strapi's text flags, link URLs, list
 * indentation. Pure.
 */
import type { FormatMarkType } from './doc';

export type FormatFlag = 'bold' | 'italic' | 'underline' | 'strikethrough' | 'code';

/** Mark type <-> Strapi flag, in the order marks are written. */
export const FORMATS: readonly (readonly [FormatMarkType, FormatFlag])[] = [
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
export const defaultIndentLevel = (parentLevel: number | undefined, nested: boolean): number | undefined =>
  nested ? (parentLevel ?? 0) + 1 : undefined;

export const asArray = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);
