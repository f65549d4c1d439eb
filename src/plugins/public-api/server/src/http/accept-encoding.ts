/**
 * Accept-Encoding (RFC 9110 12.5.3), as a pure function: which content coding a response is sent in.
 *
 * The header is a list of `coding;q=<weight>`. A weight of 0 refuses a coding, `*` stands for every
 * coding not named, and `identity` (no coding) stays acceptable unless refused by name or by `*;q=0`.
 * Only `br` and `gzip` are offered; among the acceptable ones the higher weight wins, `br` on a tie (it
 * is smaller at the same cost, docs/benchmarks.md), and `identity` named with a higher weight than both
 * means no coding. Elements that are not well formed (a bad weight, a
 * bad token) are ignored: the rest of the header still counts. No header, or one that admits neither
 * coding, means no coding.
 */
export type ContentCoding = 'br' | 'gzip';

/** What the server offers, best first. */
export const OFFERED_CODINGS: readonly ContentCoding[] = ['br', 'gzip'];

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const WEIGHT = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The weight of each coding the header names (lower-cased), and of `*`; malformed elements are left out. */
export const acceptedCodings = (header: string): Map<string, number> => {
  const weights = new Map<string, number>();
  for (const element of header.split(',')) {
    const [rawName, ...parameters] = element.split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    if (!TOKEN.test(name)) continue;
    let weight = 1;
    let wellFormed = true;
    for (const parameter of parameters) {
      const [rawKey, rawValue] = parameter.split('=');
      const key = rawKey!.trim().toLowerCase();
      const value = rawValue?.trim();
      if (key !== 'q' || value === undefined || !WEIGHT.test(value)) {
        wellFormed = false;
        break;
      }
      weight = Number(value);
    }
    if (!wellFormed) continue;
    // A coding named twice keeps its first weight, as most servers do.
    if (!weights.has(name)) weights.set(name, weight);
  }
  return weights;
};

/** The coding to send in for this Accept-Encoding, or null for none (identity). */
export const chooseCoding = (header: string | undefined): ContentCoding | null => {
  if (header === undefined) return null;
  const weights = acceptedCodings(header);
  const wildcard = weights.get('*');
  let best: ContentCoding | null = null;
  let bestWeight = 0;
  for (const coding of OFFERED_CODINGS) {
    const weight = weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined) ?? wildcard ?? 0;
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  // A client that names identity with a higher weight than every coding prefers no coding.
  const identity = weights.get('identity');
  if (best !== null && identity !== undefined && identity > bestWeight) return null;
  return best;
};
