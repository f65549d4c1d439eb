/**
 * A key's expiry as the form offers it (never, 7/30/90 days, a custom date) <-> the ISO date-time
 * the server stores. Pure.
 */
/** `current`: an existing key keeps the expiry it has (offered only when it has one). */
export const EXPIRY_PRESETS = ['current', 'never', '7', '30', '90', 'custom'] as const;
export type ExpiryChoice = (typeof EXPIRY_PRESETS)[number];

const DAY = 86_400_000;

/** The end of the chosen local day: a key "valid until 12 March" works all of 12 March. */
export const endOfDay = (date: Date): Date => new Date(date.getFullYear(), date.getMonth(), date.getDate(), 23, 59, 59, 999);

export const expiresAtFor = (
  choice: ExpiryChoice,
  customDate: Date | undefined,
  now: Date = new Date(),
  current: string | null = null,
): string | null => {
  switch (choice) {
    case 'current':
      return current;
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
