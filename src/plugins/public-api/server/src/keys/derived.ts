/**
 * The keys derived from the server secret (PUBLIC_API_KEY_SECRET): the cursor key and the asset token
 * key. Derived once per secret; a changed secret derives new ones at once.
 */
import { deriveAssetKey, type AssetKey } from '../assets/token';
import { deriveCursorKey, type CursorKey } from '../query/cursor';

export type DerivedKeys = { cursor: CursorKey; asset: AssetKey };

let derived: { secret: string; keys: DerivedKeys } | null = null;

export const derivedKeys = (secret: string): DerivedKeys => {
  if (!derived || derived.secret !== secret) derived = { secret, keys: { cursor: deriveCursorKey(secret), asset: deriveAssetKey(secret) } };
  return derived.keys;
};
