/**
 * An instant as `Date.prototype.toISOString` writes it (`2027-06-01T19:30:00.000Z`), three times faster
 * (issue 16). Every datetime of every record read goes through here: five in each event, so 500 in a page
 * of 100, and `new Date(ms).toISOString()` took 0.45 us each on the bench machine (6% of a 100-record
 * page's CPU); this takes 0.16 us. The date comes from the day number by Howard Hinnant's
 * `civil_from_days` (proleptic Gregorian, as ECMAScript's dates), the time from the rest. Outside the years
 * 0000-9999 (where `toISOString` writes six digits and a sign) and for anything but a whole number of
 * milliseconds, it is `toISOString` itself, which also throws on an invalid time exactly as before. Pure.
 */
const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const FIRST_FOUR_DIGIT_MS = -62_167_219_200_000;
const LAST_FOUR_DIGIT_MS = 253_402_300_799_999;

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
const four = (n: number) => (n < 10 ? `000${n}` : n < 100 ? `00${n}` : n < 1000 ? `0${n}` : `${n}`);

export const isoInstant = (ms: number): string => {
  if (!Number.isInteger(ms) || ms < FIRST_FOUR_DIGIT_MS || ms > LAST_FOUR_DIGIT_MS) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // civil_from_days: eras of 400 years (146,097 days) counted from 0000-03-01.
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  rest -= seconds * 1000;
  return `${four(year)}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest)}Z`;
};
