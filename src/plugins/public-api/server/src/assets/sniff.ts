/**
 * Which raster format a file's first bytes announce. Pure.
 *
 * Only files that announce a raster format we decode are ever handed to sharp: whatever an uploader
 * declared, an SVG (or a PDF, or HTML) never reaches a decoder, so it is never rasterized.
 */
export type RasterFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'heif' | 'tiff';

/** How many leading bytes `sniffRaster` needs. */
export const SNIFF_BYTES = 32;

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0): boolean =>
  bytes.length >= offset + signature.length && signature.every((byte, index) => bytes[offset + index] === byte);

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1']);

/** An ISO base media file whose major brand is an AVIF or HEIF image brand. */
const isoImageBrand = (bytes: Uint8Array): 'avif' | 'heif' | null => {
  if (!startsWith(bytes, ascii('ftyp'), 4)) return null;
  const brand = String.fromCharCode(...bytes.subarray(8, 12));
  if (AVIF_BRANDS.has(brand)) return 'avif';
  return HEIF_BRANDS.has(brand) ? 'heif' : null;
};

export const sniffRaster = (bytes: Uint8Array): RasterFormat | null => {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  return isoImageBrand(bytes);
};
