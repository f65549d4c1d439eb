/**
 * Why a key's webhook endpoints are to be turned off, or null while the key works: a key that reads
 * nothing (deleted, revoked, expired) is sent nothing, and the admin says why.
 */
export const keyUnusable = (key: { revoked: boolean; expiresAt: string | null } | null, now: number): string | null => {
  if (!key) return 'The key was deleted.';
  if (key.revoked) return 'The key was revoked.';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return 'The key has expired.';
  return null;
};
