/**
 * Path matching for /api/v2, as data: a route is a method, a pattern of segments and a handler name.
 * Unknown paths are 404; a known path with another method is 405 with the methods it allows.
 */
import { apiError } from './errors';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** What a route answers with: JSON:API documents (the default), or the OpenAPI document. */
export type RouteMedia = 'jsonapi' | 'openapi';

export type RouteDefinition<Name extends string> = {
  method: Exclude<Method, 'HEAD' | 'OPTIONS'>;
  path: string;
  name: Name;
  media?: RouteMedia;
};

export type RouteMatch<Name extends string> = {
  name: Name;
  media: RouteMedia;
  params: Record<string, string>;
  /** The methods the matched path allows, for Allow headers and preflights. */
  allow: string[];
};

type CompiledRoute<Name extends string> = RouteDefinition<Name> & { segments: string[] };

const splitPath = (path: string): string[] | null => {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return [];
  const segments = trimmed.split('/');
  const decoded: string[] = [];
  for (const segment of segments) {
    if (segment === '') return null;
    try {
      decoded.push(decodeURIComponent(segment));
    } catch {
      return null;
    }
  }
  return decoded;
};

const matchSegments = (pattern: string[], segments: string[]): Record<string, string> | null => {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) {
    const expected = pattern[i]!;
    const actual = segments[i]!;
    if (expected.startsWith(':')) params[expected.slice(1)] = actual;
    else if (expected !== actual) return null;
  }
  return params;
};

// Literal segments beat parameters at the first position where two patterns differ, so
// `/commands/schema` wins over `/:resource/:record`.
const specificity = (segments: string[]): number[] => segments.map((s) => (s.startsWith(':') ? 0 : 1));

const compareSpecificity = (a: number[], b: number[]): number => {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const diff = (b[i] ?? 0) - (a[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
};

export const createRouter = <Name extends string>(routes: RouteDefinition<Name>[]) => {
  const compiled: CompiledRoute<Name>[] = routes
    .map((route) => ({ ...route, segments: splitPath(route.path) ?? [] }))
    .sort((a, b) => compareSpecificity(specificity(a.segments), specificity(b.segments)));

  /** Matches a path relative to the API base (`/events/abc`). Throws 404/405 ApiErrors. */
  const match = (method: string, relativePath: string): RouteMatch<Name> => {
    const segments = splitPath(relativePath);
    if (segments === null) throw apiError(404, 'No endpoint exists at this path.', { reason: 'unknown_path' });
    // The most specific pattern that matches the path decides which methods the path has.
    const candidates = compiled.filter((route) => matchSegments(route.segments, segments) !== null);
    if (candidates.length === 0) {
      throw apiError(404, 'No endpoint exists at this path.', { reason: 'unknown_path' });
    }
    const best = specificity(candidates[0]!.segments);
    const samePattern = candidates.filter((route) => compareSpecificity(specificity(route.segments), best) === 0);
    const allow = [...new Set(samePattern.flatMap((route) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method])))];
    allow.push('OPTIONS');
    const wanted = method === 'HEAD' ? 'GET' : method;
    const route = samePattern.find((candidate) => candidate.method === wanted);
    if (method === 'OPTIONS') {
      const first = samePattern[0]!;
      return { name: first.name, media: first.media ?? 'jsonapi', params: matchSegments(first.segments, segments)!, allow };
    }
    if (!route) {
      throw apiError(405, `This endpoint does not support ${method}.`, {
        reason: 'method_not_allowed',
        headers: { Allow: allow.join(', ') },
      });
    }
    return { name: route.name, media: route.media ?? 'jsonapi', params: matchSegments(route.segments, segments)!, allow };
  };

  return { match };
};
