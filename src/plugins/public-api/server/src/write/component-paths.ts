/**
 * Where in the request a refusal of Strapi's points, for values inside components (contract section 15).
 * Strapi's validation says where a problem is as a path through the data it was given (`sections`, `2`,
 * `heading`; `seo`, `metaTitle`; `sections`, `2`, `__component`); the request sent that value at
 * `/data/attributes/sections/2/attributes/heading`. The write's plan knows where each value came from, so
 * the path is followed through it. Pure.
 */
import type { PlannedComponent, PlannedMember } from '../fields/codec';
import { memberPointer } from '../fields/judge';
import { hasSections, isToMany } from '../fields/items';

const INDEX = /^(0|[1-9]\d*)$/;

/** Strapi's key of a dynamic zone item's component; the request names it `type`. */
const COMPONENT_KEY = '__component';

/**
 * The pointer of the value a Strapi path names, as deep as the request names it: a problem inside a
 * value the request does not spell out (a stored richtext's blocks, a relation's links) points at the
 * field that holds it. A field the item left out is named where it would have been sent. Null when the
 * path does not start at a planned field.
 */
export const pointerOfPath = (path: readonly string[], planned: readonly PlannedMember[]): string | null => {
  const top = planned.find((member) => member.field.key === path[0]);
  if (!top) return null;
  let member: PlannedMember = top;
  let index = 1;
  for (;;) {
    if (member.planned.kind !== 'components' || index >= path.length) return member.pointer;
    let item: PlannedComponent | undefined;
    if (!isToMany(member.field)) {
      item = member.planned.items[0];
    } else {
      const position = path[index]!;
      if (!INDEX.test(position)) return member.pointer;
      item = member.planned.items[Number(position)];
      if (!item) return member.pointer;
      index += 1;
      if (index >= path.length) return item.pointer;
    }
    if (!item) return member.pointer;
    const name = path[index]!;
    if (name === COMPONENT_KEY && hasSections(member.field)) return `${item.pointer}/type`;
    const next = item.members.find((candidate) => candidate.field.key === name);
    if (!next) {
      const schema = member.field.components?.find((component) => component.uid === item.component);
      const known = schema?.fields.some((field) => field.key === name) ?? false;
      return known ? memberPointer(item.attributes, name) : item.pointer;
    }
    member = next;
    index += 1;
  }
};
