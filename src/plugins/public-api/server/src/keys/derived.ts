/**
 * The keys derived from the server secret (PUBLIC_API_KEY_SECRET): the cursor key and the asset token
 * key. The derived-keys service (services/derived-keys.ts) keeps them per application, derived once per
 * secret.
 */
import { deriveAssetKey, type AssetKey } from '../assets/token';
import { deriveCursorKey, type CursorKey } from '../query/cursor';

export type DerivedKeys = { cursor: CursorKey; asset: AssetKey };

export const deriveKeys = (secret: string): DerivedKeys => ({ cursor: deriveCursorKey(secret), asset: deriveAssetKey(secret) });
