/**
 * The seed command's arguments, parsed before anything boots or writes. Pure.
 */
export const MAX_BULK_EVENTS = 1_000_000;

export type SeedArguments = { help: boolean; events: number };

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export const SEED_USAGE = [
  'usage: npm run seed -- [--events N]',
  '',
  '  Writes the demo content (idempotent: a rerun writes nothing).',
  `  --events N   also adds N benchmark events (bench-000001 ...), 0 to ${MAX_BULK_EVENTS.toLocaleString('en')}`,
  '  --help       shows this text',
].join('\n');

export const parseSeedArguments = (args: readonly string[]): Parsed<SeedArguments> => {
  let events: number | null = null;
  let help = false;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const inline = /^--events=(.*)$/.exec(arg);
    if (arg !== '--events' && !inline) return { ok: false, message: `Unknown argument '${arg}'.` };
    if (events !== null) return { ok: false, message: '--events is given more than once.' };
    const raw = inline ? inline[1] : args[index + 1];
    if (!inline) index += 1;
    if (raw === undefined || raw === '' || raw.startsWith('--'))
      return { ok: false, message: '--events needs a number, e.g. --events 100000.' };
    if (!/^\d+$/.test(raw)) return { ok: false, message: `--events must be a whole number from 0 to ${MAX_BULK_EVENTS}, not '${raw}'.` };
    const value = Number(raw);
    if (value > MAX_BULK_EVENTS) return { ok: false, message: `--events must be at most ${MAX_BULK_EVENTS}, not ${raw}.` };
    events = value;
  }
  return { ok: true, value: { help, events: events ?? 0 } };
};
