/**
 * What a file is, from its bytes alone: never from its name or the type the client declared. Pure.
 *
 * - PDF: starts with `%PDF-`.
 * - DOCX: a ZIP archive whose central directory lists `[Content_Types].xml` and entries under `word/`
 *   (an XLSX or a plain ZIP is not a DOCX).
 */
export const FILE_KINDS = {
  pdf: { mimeType: 'application/pdf', extension: 'pdf' },
  docx: { mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' },
} as const;

export type FileKind = keyof typeof FILE_KINDS;

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');
const ZIP_LOCAL_HEADER = 0x04034b50;
const ZIP_CENTRAL_HEADER = 0x02014b50;
const ZIP_END_OF_DIRECTORY = 0x06054b50;
/** The end-of-central-directory record is 22 bytes plus a comment of at most 65535. */
const MAX_END_SEARCH = 22 + 0xffff;
/** Enough entries to find the two that matter in any real document; a bound on crafted archives. */
const MAX_ENTRIES = 10_000;

/** The names in a ZIP archive's central directory, or null when the bytes are not a readable archive. */
export const zipEntryNames = (bytes: Buffer): string[] | null => {
  if (bytes.length < 22 || bytes.readUInt32LE(0) !== ZIP_LOCAL_HEADER) return null;
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - MAX_END_SEARCH); at -= 1) {
    if (bytes.readUInt32LE(at) === ZIP_END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end === -1) return null;
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let i = 0; i < Math.min(count, MAX_ENTRIES); i += 1) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== ZIP_CENTRAL_HEADER) return null;
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    if (at + 46 + nameLength > end) return null;
    names.push(bytes.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
};

/** How many first bytes tell whether a file may be one of the kinds: a PDF, or a ZIP archive to read whole. */
export const KIND_HEAD_BYTES = 8;

/**
 * What the first KIND_HEAD_BYTES bytes decide: a PDF, a ZIP archive whose directory must be read (a
 * DOCX candidate), or neither. Lets a 10 MiB PDF be judged without reading it into memory.
 */
export const kindOfHead = (head: Buffer): 'pdf' | 'zip' | null => {
  if (head.length >= PDF_MAGIC.length && head.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) return 'pdf';
  return head.length >= 4 && head.readUInt32LE(0) === ZIP_LOCAL_HEADER ? 'zip' : null;
};

export const sniffFileKind = (bytes: Buffer): FileKind | null => {
  if (bytes.length >= PDF_MAGIC.length && bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) return 'pdf';
  const names = zipEntryNames(bytes);
  if (names && names.includes('[Content_Types].xml') && names.some((name) => name.startsWith('word/'))) return 'docx';
  return null;
};
