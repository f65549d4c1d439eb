/**
 * Path matching for /api/v2, as data: a route is a method, a pattern of segments and a handler name.
 * Unknown paths are 404. The methods a path has come from its routes alone, filtered by the mode of the
 * resource it names where a route serves only some modes: 405's Allow, OPTIONS' Allow and the CORS
 * preflight's allowed methods all read `allow` (contract section 4).
 */
import type { ResourceMode } from '../registry/types';
import { apiError } from './errors';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** The order methods are listed in. */
const METHOD_ORDER: readonly Method[] = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'];

/** What a route answers with: JSON:API documents (the default), or the OpenAPI document. */
export type RouteMedia = 'jsonapi' | 'openapi';

export type RouteDefinition<Name extends string> = {
  method: Exclude<Method, 'HEAD' | 'OPTIONS'>;
  path: string;
  name: Name;
  media?: RouteMedia;
  /** The modes of the resource the path names for which this route exists; every mode when absent. */
  modes?: readonly ResourceMode[];
  /** The JSON:API extensions (URIs) the route supports in Accept and Content-Type; none when absent. */
  extensions?: readonly string[];
};

export type MatchedRoute<Name extends string> = {
  name: Name;
  media: RouteMedia;
  modes: readonly ResourceMode[] | null;
  extensions: readonly string[];
};

export type RouteMatch<Name extends string> = {
  /** The route of the request's method (GET for HEAD); null for OPTIONS and for a method no route of the path has. */
  route: MatchedRoute<Name> | null;
  /** The handler names of the path's routes (a path is public or not as a whole). */
  names: Name[];
  params: Record<string, string>;
  /** Whether the path's methods depend on the mode of the resource it names. */
  dependsOnMode: boolean;
  /** The methods of the path for a resource of this mode (null: none named): HEAD with GET, OPTIONS always. */
  allow: (mode: ResourceMode | null) => Method[];
};

/** 405 with the methods the path has. */
export const methodNotAllowed = (method: string, allow: readonly Method[]) =>
  apiError(405, `This endpoint does not support ${method}.`, {
    reason: 'method_not_allowed',
    headers: { Allow: allow.join(', ') },
  });

type CompiledRoute<Name extends string> = RouteDefinition<Name> & { segments: string[]; specificity: number[] };

export const splitPath = (path: string): string[] | null => {
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

const COLON = 58;

/** Whether the path's segments fit the pattern (patterns of its length only: see `createRouter`). */
const matchesSegments = (pattern: readonly string[], segments: readonly string[]): boolean => {
  for (let i = 0; i < pattern.length; i += 1) {
    const expected = pattern[i]!;
    if (expected.charCodeAt(0) !== COLON && expected !== segments[i]) return false;
  }
  return true;
};

const paramsOf = (pattern: readonly string[], segments: readonly string[]): Record<string, string> => {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) if (pattern[i]!.charCodeAt(0) === COLON) params[pattern[i]!.slice(1)] = segments[i]!;
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
    .map((route) => {
      const segments = splitPath(route.path) ?? [];
      return { ...route, segments, specificity: specificity(segments) };
    })
    .sort((a, b) => compareSpecificity(a.specificity, b.specificity));
  // By number of segments: a path is only compared with the patterns of its length (issue 16: matching
  // every pattern, each with a new object of parameters, was 3% of a ten-record page's CPU).
  const byLength = new Map<number, CompiledRoute<Name>[]>();
  for (const route of compiled) byLength.set(route.segments.length, [...(byLength.get(route.segments.length) ?? []), route]);

  /**
   * Matches a path relative to the API base (`/events/abc`). Throws 404 for an unknown path, and 405 for
   * a method the path has for no resource at all when its methods do not depend on one; where they do,
   * the caller decides with `allow` once the resource is known.
   */
  const match = (method: string, relativePath: string): RouteMatch<Name> => {
    const segments = splitPath(relativePath);
    if (segments === null) throw apiError(404, 'No endpoint exists at this path.', { reason: 'unknown_path' });
    // The most specific pattern that matches the path decides which methods the path has.
    const candidates = (byLength.get(segments.length) ?? []).filter((route) => matchesSegments(route.segments, segments));
    if (candidates.length === 0) {
      throw apiError(404, 'No endpoint exists at this path.', { reason: 'unknown_path' });
    }
    const best = candidates[0]!.specificity;
    const samePattern = candidates.filter((route) => compareSpecificity(route.specificity, best) === 0);
    const dependsOnMode = samePattern.some((route) => route.modes !== undefined);
    const allow = (mode: ResourceMode | null): Method[] => {
      const methods = new Set<Method>(['OPTIONS']);
      for (const route of samePattern) {
        if (route.modes && (mode === null || !route.modes.includes(mode))) continue;
        methods.add(route.method);
        if (route.method === 'GET') methods.add('HEAD');
      }
      return METHOD_ORDER.filter((candidate) => methods.has(candidate));
    };
    const wanted = method === 'HEAD' ? 'GET' : method;
    const found = method === 'OPTIONS' ? undefined : samePattern.find((candidate) => candidate.method === wanted);
    if (!found && method !== 'OPTIONS' && !dependsOnMode) throw methodNotAllowed(method, allow(null));
    const params = paramsOf((found ?? samePattern[0]!).segments, segments);
    return {
      route: found
        ? { name: found.name, media: found.media ?? 'jsonapi', modes: found.modes ?? null, extensions: found.extensions ?? [] }
        : null,
      names: samePattern.map((route) => route.name),
      params,
      dependsOnMode,
      allow,
    };
  };

  return { match };
};
