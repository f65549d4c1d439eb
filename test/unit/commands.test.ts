/**
 * The pure parts of commands: file kinds from bytes, zod issues as pointers, closing dates.
 */
import { z } from 'zod';
import { KIND_HEAD_BYTES, kindOfHead, sniffFileKind, zipEntryNames } from '../../src/plugins/public-api/server/src/uploads/file-kind';
import { inputProblems, orderedProblems } from '../../src/plugins/public-api/server/src/commands/input';
import { isOpen, todayUtc } from '../../src/commands/job-application';
import { COMMANDS } from '../../src/commands';
import { commandEnvironment, inputJsonSchema } from '../../src/plugins/public-api/server/src/commands';
import { minimalDocx, minimalPdf, zip } from '../helpers/files';

describe('sniffFileKind', () => {
  test.each([
    ['a PDF', minimalPdf(), 'pdf'],
    ['a DOCX', minimalDocx(), 'docx'],
    ['text', Buffer.from('%PD not quite'), null],
    ['a PDF signature later in the file', Buffer.from(' %PDF-1.4'), null],
    ['an XLSX-like ZIP', zip({ '[Content_Types].xml': '', 'xl/workbook.xml': '' }), null],
    ['a ZIP with word/ but no content types', zip({ 'word/document.xml': '' }), null],
    ['a truncated ZIP', minimalDocx().subarray(0, 60), null],
    ['nothing', Buffer.alloc(0), null],
  ])('%s', (_label, bytes, kind) => {
    expect(sniffFileKind(bytes)).toBe(kind);
  });

  test.each([
    ['a PDF', minimalPdf(), 'pdf'],
    ['a DOCX', minimalDocx(), 'zip'],
    ['an XLSX-like ZIP (judged whole later)', zip({ '[Content_Types].xml': '', 'xl/workbook.xml': '' }), 'zip'],
    ['text', Buffer.from('%PD not quite'), null],
    ['nothing', Buffer.alloc(0), null],
  ])('the first bytes of %s decide: %s', (_label, bytes, kind) => {
    expect(kindOfHead(bytes.subarray(0, KIND_HEAD_BYTES))).toBe(kind);
    // A head that says PDF agrees with the whole file's kind.
    if (kind === 'pdf') expect(sniffFileKind(bytes)).toBe('pdf');
  });

  test('ZIP entry names come from the central directory', () => {
    expect(zipEntryNames(minimalDocx())).toEqual(['[Content_Types].xml', '_rels/.rels', 'word/document.xml']);
    expect(zipEntryNames(Buffer.from('PK\x03\x04 garbage garbage garbage'))).toBeNull();
  });
});

describe('inputProblems', () => {
  const schema = z.strictObject({ a: z.string(), b: z.array(z.number()).optional() });
  test('one problem per value, unknown attributes one each, absent ones as required, in pointer order', () => {
    const attributes = { b: [1, 'x'], z: 1, y: 2 };
    const result = schema.safeParse(attributes);
    const problems = orderedProblems(inputProblems(result.error!.issues, attributes));
    expect(problems.map((problem) => [(problem.source as { pointer: string }).pointer, problem.meta!.reason])).toEqual([
      ['/data/attributes/a', 'attribute_required'],
      ['/data/attributes/b/1', 'validation_failed'],
      ['/data/attributes/y', 'attribute_unknown'],
      ['/data/attributes/z', 'attribute_unknown'],
    ]);
  });

  test('pointers escape ~ and /', () => {
    const result = schema.safeParse({ a: 'x', 'p/q~r': 1 });
    expect((inputProblems(result.error!.issues, {})[0]!.source as { pointer: string }).pointer).toBe('/data/attributes/p~1q~0r');
  });
});

test('a job is open through its closing day (UTC)', () => {
  expect(todayUtc(new Date('2030-05-06T23:59:59Z'))).toBe('2030-05-06');
  expect(isOpen({ closesOn: null }, '2030-05-06')).toBe(true);
  expect(isOpen({ closesOn: '2030-05-06' }, '2030-05-06')).toBe(true);
  expect(isOpen({ closesOn: '2030-05-05' }, '2030-05-06')).toBe(false);
});

test('every registered command has a unique name and a JSON Schema 2020-12 object input', () => {
  expect(new Set(COMMANDS.map((command) => command.name)).size).toBe(COMMANDS.length);
  for (const command of COMMANDS) {
    expect(command.name).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(inputJsonSchema(command, commandEnvironment(['en']))).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
    });
  }
});
