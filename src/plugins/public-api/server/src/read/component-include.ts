/**
 * `include` through component fields (contract section 15): a path may name a component field and go on
 * with a field of its components (`sections.events`, `seo.author`). Pure.
 */
import type { IncludeSpec } from '../query/types';
import type { Field } from '../registry/types';

/** Specs merged by field, their sub-paths merged alike: two paths through one field expand it once. */
export const mergeSpecs = (specs: readonly IncludeSpec[]): IncludeSpec[] => {
  const byField = new Map<string, IncludeSpec[]>();
  for (const spec of specs) byField.set(spec.field, [...(byField.get(spec.field) ?? []), ...spec.include]);
  return [...byField].map(([field, include]) => ({ field, include: mergeSpecs(include) }));
};

/**
 * The include paths that continue inside component `uid` from the component fields `fields` (of one
 * owner) that may hold it: the sub-paths of every spec naming such a field.
 */
export const componentSpecs = (fields: readonly Field[], uid: string, include: readonly IncludeSpec[]): IncludeSpec[] => {
  const holding = new Set(fields.filter((field) => field.components?.some((component) => component.uid === uid)).map((field) => field.key));
  return mergeSpecs(include.filter((spec) => holding.has(spec.field)).flatMap((spec) => spec.include));
};
