/**
 * Integer constants written into a SQLite statement's text (database/inline-integers.ts): LIMITs and other
 * non-negative integer constants become digits, everything else stays bound in order, and a placeholder
 * inside a quoted string or identifier is never touched. The property: binding what is left to the new
 * text gives the statement that binding everything gave the old one.
 */
import fc from 'fast-check';
import { inlineIntegerConstants, type Slot } from '../../src/plugins/public-api/server/src/database/inline-integers';

/** The statement with every placeholder outside quotes replaced by its slot, as text (a test's renderer). */
const render = (sql: string, slots: readonly Slot[]) => {
  let i = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\?/g, (token) => {
    if (token !== '?') return token;
    const slot = slots[i++]!;
    return 'param' in slot ? `$p${slot.param}` : typeof slot.constant === 'number' ? String(slot.constant) : JSON.stringify(slot.constant);
  });
};

test('a LIMIT and other non-negative integer constants are written out; parameters and strings stay bound', () => {
  const slots: Slot[] = [{ constant: 'en' }, { param: 0 }, { constant: 1 }];
  expect(inlineIntegerConstants('select `a` from `t` where `locale` = ? and `slug` = ? limit ?', slots)).toEqual({
    sql: 'select `a` from `t` where `locale` = ? and `slug` = ? limit 1',
    slots: [{ constant: 'en' }, { param: 0 }],
  });
  // A parameter stays a parameter even when its value is an integer: it varies from read to read.
  expect(inlineIntegerConstants('select 1 limit ?', [{ param: 0 }])).toEqual({ sql: 'select 1 limit ?', slots: [{ param: 0 }] });
});

test('negative, fractional, unsafe and non-number constants stay bound', () => {
  for (const constant of [-1, 1.5, 2 ** 60, Number.NaN, '7', true, null, 10n]) {
    const slots: Slot[] = [{ constant }];
    expect(inlineIntegerConstants('select `a` - ? from `t`', slots)).toEqual({ sql: 'select `a` - ? from `t`', slots });
  }
});

test('placeholders inside quoted strings and identifiers are not placeholders', () => {
  const slots: Slot[] = [{ constant: 5 }];
  expect(inlineIntegerConstants('select \'?\', "a?", `b?``?`, [c?] from t limit ?', slots).sql).toBe(
    'select \'?\', "a?", `b?``?`, [c?] from t limit 5',
  );
  expect(inlineIntegerConstants("select 'it''s ?' limit ?", slots).sql).toBe("select 'it''s ?' limit 5");
});

test('when the placeholders and the slots do not pair one to one, nothing changes', () => {
  const slots: Slot[] = [{ constant: 5 }, { constant: 6 }];
  expect(inlineIntegerConstants('select ? ', slots)).toEqual({ sql: 'select ? ', slots });
  expect(inlineIntegerConstants('select ?, ?, ?', slots)).toEqual({ sql: 'select ?, ?, ?', slots });
  expect(inlineIntegerConstants('select ?1, ?2', slots)).toEqual({ sql: 'select ?1, ?2', slots });
});

test('property: what is left bound, bound to the new text, is the statement everything bound to the old', () => {
  const token = fc.oneof(
    fc.constantFrom('select', ' ', 'from', '`t`', 'where', '=', 'limit', ',', '(', ')', '-'),
    fc.string({ unit: fc.constantFrom('a', '?', ' ', "''") }).map((text) => `'${text}'`),
    fc.string({ unit: fc.constantFrom('b', '?', '``') }).map((text) => `\`${text}\``),
    fc.constant('?'),
  );
  const slot: fc.Arbitrary<Slot> = fc.oneof(
    fc.nat({ max: 5 }).map((param) => ({ param })),
    fc.oneof(fc.nat(), fc.integer({ min: -5, max: -1 }), fc.double(), fc.string(), fc.boolean()).map((constant) => ({ constant })),
  );
  fc.assert(
    fc.property(fc.array(token, { maxLength: 30 }), fc.array(slot, { maxLength: 30 }), (tokens, pool) => {
      const sql = tokens.join(' ');
      const count = (sql.match(/'(?:[^']|'')*'|`(?:[^`]|``)*`|\?/g) ?? []).filter((t) => t === '?').length;
      const slots = Array.from({ length: count }, (_, index) => pool[index % Math.max(pool.length, 1)] ?? { constant: 0 });
      const result = inlineIntegerConstants(sql, slots);
      expect(render(result.sql, result.slots)).toBe(render(sql, slots));
      expect(
        result.slots.every((kept) => !('constant' in kept) || !(Number.isSafeInteger(kept.constant) && (kept.constant as number) >= 0)),
      ).toBe(true);
    }),
  );
});
