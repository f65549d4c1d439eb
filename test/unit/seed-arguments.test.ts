import { MAX_BULK_EVENTS, parseSeedArguments } from '../../src/seed/arguments';

test('no arguments: the demo content only', () => {
  expect(parseSeedArguments([])).toEqual({ ok: true, value: { help: false, events: 0 } });
});

test('--events N and --events=N', () => {
  expect(parseSeedArguments(['--events', '100000'])).toEqual({ ok: true, value: { help: false, events: 100000 } });
  expect(parseSeedArguments(['--events=25'])).toEqual({ ok: true, value: { help: false, events: 25 } });
  expect(parseSeedArguments(['--events', '0'])).toEqual({ ok: true, value: { help: false, events: 0 } });
  expect(parseSeedArguments(['--events', String(MAX_BULK_EVENTS)])).toMatchObject({ ok: true });
});

test('--help', () => {
  expect(parseSeedArguments(['--help'])).toEqual({ ok: true, value: { help: true, events: 0 } });
});

test.each([
  [['--events'], '--events needs a number, e.g. --events 100000.'],
  [['--events', '--help'], '--events needs a number, e.g. --events 100000.'],
  [['--events='], '--events needs a number, e.g. --events 100000.'],
  [['--events', 'abc'], `--events must be a whole number from 0 to ${MAX_BULK_EVENTS}, not 'abc'.`],
  [['--events', '-5'], `--events must be a whole number from 0 to ${MAX_BULK_EVENTS}, not '-5'.`],
  [['--events', '2.5'], `--events must be a whole number from 0 to ${MAX_BULK_EVENTS}, not '2.5'.`],
  [['--events', '1e5'], `--events must be a whole number from 0 to ${MAX_BULK_EVENTS}, not '1e5'.`],
  [['--events', String(MAX_BULK_EVENTS + 1)], `--events must be at most ${MAX_BULK_EVENTS}, not ${MAX_BULK_EVENTS + 1}.`],
  [['--events', '5', '--events', '6'], '--events is given more than once.'],
  [['--evnts', '5'], "Unknown argument '--evnts'."],
  [['5'], "Unknown argument '5'."],
])('%j is refused: %s', (args, message) => {
  expect(parseSeedArguments(args)).toEqual({ ok: false, message });
});
