/**
 * A key's expiry as the form offers it (never, 7/30/90 days, a custom date) <-> the ISO date-time
 * the server stores. Pure.
 */
export const EXPIRY_PRESETS = ['never', '7', '30', '90', 'custom'] as const;
export type ExpiryChoice = (typeof EXPIRY_PRESETS)[number];

const DAY = 86_400_000;

/** The end of the chosen local day: a key "valid until 12 March" works all of 12 March. */
export const endOfDay = (date: Date): Date => new Date(date.getFullYear(), date.getMonth(), date.getDate(), 23, 59, 59, 999);

export const expiresAtFor = (choice: ExpiryChoice, customDate: Date | undefined, now: Date = new Date()): string | null => {
  switch (choice) {
    case 'never':
      return null;
    case 'custom':
      return customDate ? endOfDay(customDate).toISOString() : null;
    default:
      return new Date(now.getTime() + Number(choice) * DAY).toISOString();
  }
};

export const isExpired = (expiresAt: string | null, now: Date = new Date()): boolean =>
  expiresAt !== null && Date.parse(expiresAt) <= now.getTime();

/** The earliest date a custom expiry may take: tomorrow. */
export const tomorrow = (now: Date = new Date()): Date => new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
