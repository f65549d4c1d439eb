/**
 * Every date in the seed is relative to one fixed instant, never to `Date.now()`: two runs months
 * apart produce the same content.
 */
export const SEED_EPOCH = Date.UTC(2025, 0, 6, 0, 0, 0);

const DAY = 24 * 60 * 60 * 1000;

/** An ISO datetime `days` after the epoch, at a given UTC time of day. */
export const instantAfterEpoch = (days: number, hours = 0, minutes = 0): string =>
  new Date(SEED_EPOCH + days * DAY + (hours * 60 + minutes) * 60 * 1000).toISOString();

/** A calendar day (`YYYY-MM-DD`) `days` after the epoch. */
export const dayAfterEpoch = (days: number): string => new Date(SEED_EPOCH + days * DAY).toISOString().slice(0, 10);

/** Whole days from the epoch to a calendar day. */
export const daysFromEpochTo = (day: string): number => Math.round((Date.parse(`${day}T00:00:00.000Z`) - SEED_EPOCH) / DAY);
