/**
 * What component fields take on writes (contract section 15): the shapes reads give, back. A `component`
 * takes one object of its component's fields (or null), a `components` field a list of them, a
 * `dynamiczone` a list of `{ "type": "<category>.<name>", "attributes": { ... } }` whose type is one of the
 * zone's components. Each field inside is judged by its own type (the table's codec, handed in as
 * `context.member`), so nested components, media, relations and richtext take what they take at the top.
 *
 * A write replaces the field's value whole: every item is a new component value, and what an item leaves
 * out is left empty (or the field's default), as in a create. Pure.
 */
import type { ComponentSchema, Field } from '../../registry/types';
import { echo } from '../../values/echo';
import type { ComponentBudget, PlannedComponent, PlannedMember, PlannedValue, Violation, WriteContext, WriteVerdict } from '../codec';
import { accept, describe, isObject, memberPointer, refuse, violation } from '../judge';

/**
 * The most component values one field's value may hold, nested ones included: each is a row Strapi writes
 * (and a join row), so what one write costs stays bounded whatever the body holds.
 */
export const MAX_COMPONENT_VALUES = 200;

/** The members of a dynamic zone item, as reads show it. */
const ZONE_ITEM_MEMBERS = new Set(['type', 'attributes']);

/** How many problems one value reports at most (as the whole write reports: write/attributes.ts). */
const MAX_VIOLATIONS = 20;

type Judged = { ok: true; item: PlannedComponent } | { ok: false; violations: Violation[] };

const budgetOf = (context: WriteContext): ComponentBudget => context.budget ?? { left: MAX_COMPONENT_VALUES };

const overBudget = (field: Field, pointer: string): Violation =>
  violation(
    pointer,
    `'${field.key}' holds more than ${MAX_COMPONENT_VALUES} component values (nested ones included); one write takes at most that many.`,
  );

/**
 * One component value: an object of the component's fields, each judged by its own type. A member that
 * is no field of the component (or none this key sees) is refused where it was sent.
 */
const judgeValue = (
  raw: unknown,
  component: ComponentSchema,
  at: { item: string; attributes: string },
  owner: Field,
  context: WriteContext,
  budget: ComponentBudget,
): Judged => {
  if (!isObject(raw)) {
    return {
      ok: false,
      violations: [violation(at.attributes, `A ${component.uid} value is an object of its fields, not ${describe(raw)}.`)],
    };
  }
  budget.left -= 1;
  if (budget.left < 0) return { ok: false, violations: [overBudget(owner, at.item)] };
  const members: PlannedMember[] = [];
  const violations: Violation[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (violations.length >= MAX_VIOLATIONS) break;
    const pointer = memberPointer(at.attributes, name);
    const field = component.fields.find((candidate) => candidate.key === name);
    const verdict = field ? context.member?.(value, field, component, { ...context, pointer, budget }) : null;
    if (!field || !verdict) {
      violations.push(violation(pointer, `${component.uid} has no field ${echo(name)}.`));
      continue;
    }
    if (!verdict.ok) {
      violations.push(...verdict.violations);
      continue;
    }
    // A list of references is written whole inside a component: the component value itself is new.
    if (verdict.planned.kind === 'relationChanges') {
      violations.push(
        violation(pointer, `Inside a component, '${name}' takes the whole list of references (an array), not a change of it.`),
      );
      continue;
    }
    members.push({ field, pointer, planned: verdict.planned });
  }
  if (violations.length < MAX_VIOLATIONS) violations.push(...emptyRequired(raw, component, members, at.attributes));
  return violations.length
    ? { ok: false, violations: violations.slice(0, MAX_VIOLATIONS) }
    : { ok: true, item: { component: component.uid, pointer: at.item, attributes: at.attributes, members } };
};

/** Field types whose value is a list of links (assets, records) Strapi's `required` does not hold to a value. */
const LINK_TYPES: ReadonlySet<string> = new Set(['image', 'file', 'images', 'files', 'relation', 'relations']);

/** Whether a planned value holds nothing: no asset, no reference, no component value. */
const isEmpty = (planned: PlannedValue): boolean =>
  (planned.kind === 'media' && planned.refs.length === 0) ||
  (planned.kind === 'relation' && planned.refs.length === 0) ||
  (planned.kind === 'components' && planned.items.length === 0);

/**
 * The required fields of a component value left empty, one violation each where the field is (or would
 * be) sent. Strapi holds a required scalar or single component to a value itself, but lets a required
 * media or relation field through empty (`[]`, null, or left out) and a required repeatable component or
 * zone through as `[]`. A component value of a write is always new, so a field left out is empty too.
 */
const emptyRequired = (
  raw: Record<string, unknown>,
  component: ComponentSchema,
  members: readonly PlannedMember[],
  at: string,
): Violation[] =>
  component.fields.flatMap((field) => {
    if (!field.required) return [];
    const member = members.find((candidate) => candidate.field === field);
    const empty = member ? isEmpty(member.planned) : !Object.hasOwn(raw, field.key) && LINK_TYPES.has(field.type);
    if (!empty) return [];
    const what = LINK_TYPES.has(field.type) ? (field.type.startsWith('relation') ? 'a reference' : 'an asset') : 'a component value';
    return [violation(memberPointer(at, field.key), `'${field.key}' is required: it takes at least ${what}.`)];
  });

/** Each item judged on its own: every violation, or all the items. */
const judgeList = (raw: readonly unknown[], pointer: string, judgeItem: (item: unknown, pointer: string) => Judged): WriteVerdict => {
  const items: PlannedComponent[] = [];
  const violations: Violation[] = [];
  for (const [index, entry] of raw.entries()) {
    if (violations.length >= MAX_VIOLATIONS) break;
    const judged = judgeItem(entry, `${pointer}/${index}`);
    if (judged.ok) items.push(judged.item);
    else violations.push(...judged.violations);
  }
  return violations.length ? refuse(...violations.slice(0, MAX_VIOLATIONS)) : accept({ kind: 'components', items });
};

const onlyComponent = (field: Field): ComponentSchema => field.components![0]!;

/** `component`: one value of its component, or null. */
export const parseComponentWrite = (raw: unknown, field: Field, context: WriteContext): WriteVerdict => {
  if (raw === null) return accept({ kind: 'components', items: [] });
  const { pointer } = context;
  const component = onlyComponent(field);
  if (!isObject(raw)) {
    return refuse(violation(pointer, `'${field.key}' takes an object of ${component.uid}'s fields, or null; not ${describe(raw)}.`));
  }
  const judged = judgeValue(raw, component, { item: pointer, attributes: pointer }, field, context, budgetOf(context));
  return judged.ok ? accept({ kind: 'components', items: [judged.item] }) : refuse(...judged.violations);
};

/** `components`: a list of values of its component, in order (null is the empty list). */
export const parseRepeatableWrite = (raw: unknown, field: Field, context: WriteContext): WriteVerdict => {
  if (raw === null) return accept({ kind: 'components', items: [] });
  const { pointer } = context;
  const component = onlyComponent(field);
  if (!Array.isArray(raw)) {
    return refuse(violation(pointer, `'${field.key}' takes an array of ${component.uid} values, not ${describe(raw)}.`));
  }
  const budget = budgetOf(context);
  return judgeList(raw, pointer, (item, at) => judgeValue(item, component, { item: at, attributes: at }, field, context, budget));
};

const zoneTypes = (field: Field): string => (field.components ?? []).map((component) => component.uid).join(', ');

/** `dynamiczone`: a list of `{ type, attributes }`, each type one of the zone's components (null is the empty list). */
export const parseDynamicZoneWrite = (raw: unknown, field: Field, context: WriteContext): WriteVerdict => {
  if (raw === null) return accept({ kind: 'components', items: [] });
  const { pointer } = context;
  const shape = `'${field.key}' takes an array of entries { "type": "<category>.<name>", "attributes": { ... } }`;
  if (!Array.isArray(raw)) return refuse(violation(pointer, `${shape}, not ${describe(raw)}.`));
  const budget = budgetOf(context);
  return judgeList(raw, pointer, (item, at): Judged => {
    if (!isObject(item)) return { ok: false, violations: [violation(at, `${shape}; this one is ${describe(item)}.`)] };
    const stray = Object.keys(item).filter((member) => !ZONE_ITEM_MEMBERS.has(member));
    if (stray.length) {
      return {
        ok: false,
        violations: stray.map((member) =>
          violation(memberPointer(at, member), `An entry of '${field.key}' has \`type\` and \`attributes\`, not ${echo(member)}.`),
        ),
      };
    }
    const type = item.type;
    if (typeof type !== 'string') {
      return {
        ok: false,
        violations: [violation(`${at}/type`, `An entry of '${field.key}' names its component in \`type\`: one of ${zoneTypes(field)}.`)],
      };
    }
    const component = field.components?.find((candidate) => candidate.uid === type);
    if (!component) {
      return {
        ok: false,
        violations: [violation(`${at}/type`, `'${field.key}' takes entries of type ${zoneTypes(field)}; not ${echo(type)}.`)],
      };
    }
    const attributes = Object.hasOwn(item, 'attributes') ? item.attributes : {};
    return judgeValue(attributes, component, { item: at, attributes: `${at}/attributes` }, field, context, budget);
  });
};
