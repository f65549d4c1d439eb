/**
 * A minimal, valid one-page PDF written by hand: header, catalog, pages, page, content stream, a
 * standard font, a cross-reference table with exact byte offsets, and the trailer. Pure.
 */
import type { PlannedPdf } from '../plan/types';

/** PDF strings escape backslashes and parentheses; the text here is plain ASCII. */
const pdfString = (value: string): string => `(${value.replace(/[\\()]/g, (char) => `\\${char}`)})`;

export const renderPdf = (document: PlannedPdf): Buffer => {
  const lines = [document.title, '', ...document.lines];
  const content = [
    'BT',
    '/F1 18 Tf',
    '72 760 Td',
    '22 TL',
    ...lines.map((line, index) => (index === 0 ? `${pdfString(line)} Tj` : `T* ${pdfString(line)} Tj`)),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefOffset = Buffer.byteLength(body, 'latin1');
  // Each cross-reference entry is exactly 20 bytes: 10-digit offset, 5-digit generation, type, CRLF-ish EOL.
  const xref = [
    `xref\n0 ${objects.length + 1}\n`,
    '0000000000 65535 f \n',
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`),
  ].join('');
  const trailer = `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  return Buffer.from(body + xref + trailer, 'latin1');
};
