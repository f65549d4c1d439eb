/**
 * Contract section 7: no error message ever quotes a stored value of a field the key may not read. The
 * class, for every domain rule: a message holds no value at all; a value travels only as a quote naming
 * its field, and the API shows it only to a key that may read that field.
 */
import fc from 'fast-check';
import { DOMAIN_RULES, type RuleLookups } from '../../src/domain/rules';
import { validationErrorOf, type Violation } from '../../src/domain/violations';
import { apiErrorOfWrite } from '../../src/plugins/public-api/server/src/write/violations';

/** Values no message could contain by chance: long, distinctive, of every kind a rule reads. */
const value = fc.oneof(
  fc.integer({ min: 10_000, max: 9_999_999 }),
  fc.integer({ min: -9_999_999, max: -10_000 }),
  fc.integer({ min: 10_000, max: 9_999_999 }).map(String),
  fc.date({ min: new Date('1990-01-01'), max: new Date('2090-01-01'), noInvalidDate: true }).map((date) => date.toISOString()),
  fc.date({ min: new Date('1990-01-01'), max: new Date('2090-01-01'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)),
  fc.stringMatching(/^[A-Z]{3}-[0-9]{4,6}$/),
  fc.constant(null),
);

/** How a value may show up in a message: as given, or normalized by the rule. */
const spellings = (raw: unknown): string[] => {
  if (raw === null || raw === undefined) return [];
  const text = String(raw).trim();
  const forms = new Set([text]);
  // Rules read instants leniently (a number is milliseconds, a string whatever Date.parse takes).
  const time = typeof raw === 'number' ? raw : Date.parse(text);
  if (!Number.isNaN(time) && Math.abs(time) <= 8.64e15) {
    forms.add(new Date(time).toISOString());
    forms.add(new Date(time).toISOString().slice(0, 10));
  }
  if (!Number.isNaN(Number(text))) forms.add(String(Number(text)));
  return [...forms];
};

const takenLookups: RuleLookups = { documentsWithValue: async () => ['someone-else'] };
const freeLookups: RuleLookups = { documentsWithValue: async () => [] };

const recordFor = (fields: readonly string[]) =>
  fc.record(Object.fromEntries(fields.map((field) => [field, value])) as Record<string, fc.Arbitrary<unknown>>);

describe.each(DOMAIN_RULES.map((rule) => [rule.name, rule] as const))('rule %s', (_name, rule) => {
  test('its messages hold no value; a quote names a field the rule reads and carries that field’s value', async () => {
    await fc.assert(
      fc.asyncProperty(recordFor(rule.fields), fc.subarray([...rule.fields]), fc.boolean(), async (record, changed, taken) => {
        const violations = await rule.check(record, {
          contentType: rule.contentTypes[0]!,
          documentId: null,
          changed: new Set(changed),
          lookups: taken ? takenLookups : freeLookups,
        });
        for (const violation of violations) {
          for (const field of rule.fields) {
            for (const form of spellings(record[field])) expect(violation.message).not.toContain(form);
          }
          if (violation.quote) {
            expect(rule.fields).toContain(violation.quote.field);
            expect(spellings(record[violation.quote.field])).toContain(violation.quote.value);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('what the API sends of a quote', () => {
  const fields = ['startsAt', 'endsAt', 'salaryMin', 'salaryMax', 'sku'];
  const violation: fc.Arbitrary<Violation> = fc.record({
    path: fc.constantFrom(...fields).map((field) => [field]),
    message: fc.constantFrom('The end must follow the start.', 'This value is taken.'),
    quote: fc.record({ field: fc.constantFrom(...fields), value: fc.stringMatching(/^Q-[0-9]{6}$/) }),
  });

  test('the value only to a key that may read its field; the message always', () => {
    fc.assert(
      fc.property(
        fc.array(violation, { minLength: 1, maxLength: 4 }),
        fc.subarray(fields),
        fc.subarray(fields),
        (violations, readable, writable) => {
          const scope = { visible: new Set([...readable, ...writable]), readable: new Set(readable) };
          const error = apiErrorOfWrite(validationErrorOf(violations), scope)!;
          const sent = JSON.stringify(error.errors);
          for (const { quote, path } of violations) {
            if (!readable.includes(quote!.field)) expect(sent).not.toContain(quote!.value);
            else if (scope.visible.has(path[0]!)) expect(sent).toContain(quote!.value);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
