/**
 * `include=venue,festival.events` -> the expansion tree (contract section 6). Pure.
 */
import { echo, parameterError } from './problems';
import type { IncludeSpec, IncludeTree } from './types';

export const MAX_INCLUDE_DEPTH = 3;
export const MAX_INCLUDE_PATHS = 10;

const fail = (detail: string, reason: Parameters<typeof parameterError>[2]) => parameterError('include', detail, reason);

/** Adds one path to the spec, sharing prefixes: `festival` and `festival.events` are one branch. */
const addPath = (specs: IncludeSpec[], segments: readonly string[]): void => {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  let spec = specs.find((candidate) => candidate.field === head);
  if (!spec) {
    spec = { field: head, include: [] };
    specs.push(spec);
  }
  addPath(spec.include, rest);
};

/**
 * Every path must walk expandable fields from this resource. An unknown field, an unreadable one and a
 * field that is not a relation get the same answer, which echoes only the path as sent.
 */
export const parseInclude = (text: string, tree: IncludeTree): IncludeSpec[] => {
  const paths = text.split(',');
  if (paths.length > MAX_INCLUDE_PATHS) {
    throw fail(`At most ${MAX_INCLUDE_PATHS} include paths are allowed.`, 'include_limit');
  }
  const seen = new Set<string>();
  const specs: IncludeSpec[] = [];
  for (const path of paths) {
    if (seen.has(path)) throw fail(`The include path ${echo(path)} is repeated.`, 'include_repeated');
    seen.add(path);
    const segments = path.split('.');
    if (segments.length > MAX_INCLUDE_DEPTH) {
      throw fail(`The include path ${echo(path)} is deeper than ${MAX_INCLUDE_DEPTH} levels.`, 'include_too_deep');
    }
    let level: IncludeTree | undefined = tree;
    for (const segment of segments) {
      level = level?.get(segment);
      if (!level) throw fail(`${echo(path)} is not an expandable relation path.`, 'include_invalid');
    }
    if (level?.throughComponent) {
      throw fail(`${echo(path)} ends on a component field; name a relation inside it (${echo(`${path}.<relation>`)}).`, 'include_invalid');
    }
    addPath(specs, segments);
  }
  return specs;
};

/** The paths of a spec, dot-joined, depth first: for OpenAPI enums, links and tests. */
export const includePaths = (specs: readonly IncludeSpec[], prefix = ''): string[] =>
  specs.flatMap((spec) => {
    const path = `${prefix}${spec.field}`;
    return [path, ...includePaths(spec.include, `${path}.`)];
  });

/** Every path `include` accepts from this tree (cycles end at the depth limit): for the OpenAPI enum. */
export const expandablePaths = (tree: IncludeTree, depth = MAX_INCLUDE_DEPTH, prefix = ''): string[] =>
  depth <= 0
    ? []
    : [...tree].flatMap(([field, next]) => {
        const path = `${prefix}${field}`;
        const deeper = expandablePaths(next, depth - 1, `${path}.`);
        return next.throughComponent ? deeper : [path, ...deeper];
      });
