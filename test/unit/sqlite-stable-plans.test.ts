/**
 * SQLite statements planned once (database/sqlite-stable-plans.ts): LIMIT and OFFSET constants become
 * digits, every other placeholder becomes `+?` (bound in order), and a placeholder inside
 * a quoted string or identifier is never touched. Against a real SQLite: the rewritten statement answers
 * as the original does. The property: binding what is left to the new text gives the statement that
 * binding everything gave the old one.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { stablePlanSql, stablePlanStatement, type Slot } from '../../src/plugins/public-api/server/src/database/sqlite-stable-plans';

/** The statement with every placeholder outside quotes replaced by its slot, as text (a test's renderer). */
const render = (sql: string, slots: readonly Slot[]) => {
  let i = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\+\?|\?/g, (token) => {
    if (token !== '?' && token !== '+?') return token;
    const slot = slots[i++]!;
    return 'param' in slot ? `$p${slot.param}` : typeof slot.constant === 'number' ? String(slot.constant) : JSON.stringify(slot.constant);
  });
};

test('a LIMIT or OFFSET constant is written out; parameters, strings and other numbers stay bound as +?', () => {
  const slots: Slot[] = [{ constant: 'en' }, { param: 0 }, { constant: 1 }];
  expect(stablePlanStatement('select `a` from `t` where `locale` = ? and `slug` = ? limit ?', slots)).toEqual({
    sql: 'select `a` from `t` where `locale` = +? and `slug` = +? limit 1',
    slots: [{ constant: 'en' }, { param: 0 }],
  });
  // A parameter stays a parameter even when its value is an integer: it varies from read to read.
  expect(stablePlanStatement('select 1 limit ?', [{ param: 0 }])).toEqual({ sql: 'select 1 limit +?', slots: [{ param: 0 }] });
  expect(stablePlanStatement('select a from t LIMIT ? OFFSET ?', [{ constant: 10 }, { constant: 20 }]).sql).toBe(
    'select a from t LIMIT 10 OFFSET 20',
  );
  // Elsewhere a number can mean a column (ORDER BY 1), so it stays bound.
  expect(stablePlanStatement('select a from t where n = ? order by ?', [{ constant: 1 }, { constant: 1 }])).toEqual({
    sql: 'select a from t where n = +? order by +?',
    slots: [{ constant: 1 }, { constant: 1 }],
  });
});

test('negative, fractional, unsafe and non-number constants stay bound', () => {
  for (const constant of [-1, 1.5, 2 ** 60, Number.NaN, '7', true, null, 10n]) {
    const slots: Slot[] = [{ constant }];
    expect(stablePlanStatement('select `a` from `t` limit ?', slots)).toEqual({ sql: 'select `a` from `t` limit +?', slots });
  }
});

test('placeholders inside quoted strings and identifiers are not placeholders', () => {
  const slots: Slot[] = [{ constant: 5 }];
  expect(stablePlanStatement('select \'?\', "a?", `b?``?`, [c?] from t limit ?', slots).sql).toBe(
    'select \'?\', "a?", `b?``?`, [c?] from t limit 5',
  );
  expect(stablePlanStatement("select 'it''s ?' limit ?", slots).sql).toBe("select 'it''s ?' limit 5");
});

test('when the placeholders and the slots do not pair one to one, nothing changes', () => {
  const slots: Slot[] = [{ constant: 5 }, { constant: 6 }];
  expect(stablePlanStatement('select ? ', slots)).toEqual({ sql: 'select ? ', slots });
  expect(stablePlanStatement('select ?, ?, ?', slots)).toEqual({ sql: 'select ?, ?, ?', slots });
  expect(stablePlanStatement('select ?1, ?2', slots)).toEqual({ sql: 'select ?1, ?2', slots });
});

test('a statement of parameters only: each placeholder outside quotes becomes +?', () => {
  expect(stablePlanSql("insert into t (k, v) values (?, ?) on conflict(k) do update set v = case when v > ? then '?' else v end")).toBe(
    "insert into t (k, v) values (+?, +?) on conflict(k) do update set v = case when v > +? then '?' else v end",
  );
  expect(stablePlanSql('select ?1')).toBe('select ?1');
});

test('in SQLite, +? is the value itself: equality, IN, ranges, LIKE, IS NULL, affinity and index lookups answer as before', () => {
  const db = new Database(':memory:');
  db.exec(`create table t (id integer primary key, n integer, s text collate nocase, r real, b blob);
    create index t_n on t (n);
    insert into t (n, s, r, b) values (1, 'Alpha', 1.5, x'01'), (2, 'beta', 2.0, null), (10, '10', 3.25, x'02'), (null, null, null, null);`);
  const cases: [string, unknown[]][] = [
    ['select id from t where n = ? order by id', [2]],
    ['select id from t where n = ? order by id', ['2']], // text compared with an integer column: numeric affinity
    ['select id from t where s = ? order by id', ['ALPHA']], // the column's collation applies
    ['select id from t where s = ? order by id', [10]],
    ['select id from t where n in (?, ?) order by id', [1, 10]],
    ['select id from t where r > ? and r <= ? order by id', [1.5, 3.25]],
    ['select id from t where s like ? order by id', ['b%']],
    ['select id from t where n is ? order by id', [null]],
    ['select id from t where b = ? order by id', [Buffer.from([2])]],
    ['select id, ? as echo from t order by id limit ?', ['x', 2]],
  ];
  for (const [sql, values] of cases) {
    const slots: Slot[] = values.map((_, param) => ({ param }));
    const stable = stablePlanStatement(sql, slots);
    const bound = stable.slots.map((slot) => ('param' in slot ? values[slot.param] : slot.constant));
    expect(db.prepare(stable.sql).all(...bound)).toEqual(db.prepare(sql).all(...values));
  }
  // Still an index lookup.
  const plan = db.prepare(`explain query plan ${stablePlanStatement('select id from t where n = ?', [{ param: 0 }]).sql}`).all(2);
  expect(JSON.stringify(plan)).toContain('USING COVERING INDEX t_n (n=?)');
  db.close();
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
      const result = stablePlanStatement(sql, slots);
      expect(render(result.sql, result.slots)).toBe(render(sql, slots));
      // No LIMIT constant is left bound: each kept placeholder after LIMIT holds a parameter or a non-count.
      let at = 0;
      result.sql.replace(/'(?:[^']|'')*'|`(?:[^`]|``)*`|\+\?/g, (token, offset: number) => {
        if (token !== '+?') return token;
        const kept = result.slots[at++]!;
        const count = 'constant' in kept && Number.isSafeInteger(kept.constant) && (kept.constant as number) >= 0;
        expect(count && /\blimit\s*$/i.test(result.sql.slice(0, offset))).toBe(false);
        return token;
      });
      expect(at).toBe(result.slots.length);
    }),
  );
});
