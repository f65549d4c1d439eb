/**
 * The heaviest read of `npm run bench:abuse`'s include row: the deepest include paths the grants allow at
 * the largest page the response bound serves, found on the running server.
 */

/**
 * One GET; its status and body size. Sent a second time when the connection fails: on a loaded machine a
 * kept-alive socket the server was closing (its keep-alive timeout) was reused between two steps.
 */
const sized = async (url: string, headers: Record<string, string>, attempt = 1): Promise<{ status: number; bytes: number }> => {
  try {
    const res = await fetch(url, { headers });
    return { status: res.status, bytes: (await res.arrayBuffer()).byteLength };
  } catch (error) {
    // undici says only "fetch failed"; the reason is its cause.
    if (attempt === 1) return sized(url, headers, 2);
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new Error(`GET ${url}: ${cause ?? String(error)}`, { cause: error });
  }
};

/** The reads an attacker would try, deepest first (the include depth limit is 3 levels). */
export const INCLUDE_CANDIDATES = [
  { resource: 'buildings', include: 'events.venue.events,events.festival.events' },
  { resource: 'buildings', include: 'events.venue.events' },
  { resource: 'events', include: 'venue.events,festival.events' },
  { resource: 'events', include: 'venue.events' },
  { resource: 'buildings', include: 'events.venue,events.festival' },
  { resource: 'events', include: 'venue,festival' },
];

/** The attack's read: its path and query below the API base (the same on every server of the run). */
export type AttackTarget = { path: string; label: string; bytes: number; refusedFirst: string[] };

/**
 * The heaviest read the server serves: for each candidate, deepest first, the largest `limit` (1 to 100)
 * that is not refused up front (400 include_too_large), found by bisection; the first candidate served
 * at any limit wins.
 */
export const findAttack = async (api: string, headers: Record<string, string>): Promise<AttackTarget> => {
  const refusedFirst: string[] = [];
  for (const candidate of INCLUDE_CANDIDATES) {
    const pathOf = (limit: number) => `/${candidate.resource}?limit=${limit}&include=${candidate.include}`;
    const urlOf = (limit: number) => `${api}${pathOf(limit)}`;
    const at100 = await sized(urlOf(100), headers);
    if (at100.status === 200)
      return {
        path: pathOf(100),
        label: `/${candidate.resource}?limit=100&include=${candidate.include}`,
        bytes: at100.bytes,
        refusedFirst,
      };
    refusedFirst.push(`/${candidate.resource}?limit=100&include=${candidate.include}: ${at100.status}`);
    let served = 0;
    let bytes = 0;
    let refused = 100;
    while (refused - served > 1) {
      const limit = Math.floor((served + refused) / 2);
      const res = await sized(urlOf(limit), headers);
      if (res.status === 200) {
        served = limit;
        bytes = res.bytes;
      } else {
        refused = limit;
      }
    }
    if (served > 0) return { path: pathOf(served), label: pathOf(served), bytes, refusedFirst };
  }
  throw new Error('No include read is served at all; is the database seeded?');
};
