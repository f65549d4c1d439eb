/**
 * Components and dynamic zones as writes take them (contract section 15), beside their read schemas
 * (./component-schemas.ts): each component's input schema is written once (`Component.<Category>.<Name>.Input`,
 * and `.AtomicInput` where relations also take lid references), its fields' write schemas as at the top
 * level; a zone's item input is a `oneOf` of `{ type, attributes }` with a discriminator on `type`.
 *
 * A component value is written whole (a new value replaces the stored one), so the fields its content type
 * requires without a default are required in every input, of a create and of an update alike.
 */
import type { SchemaKit, ValueSchema } from '../fields/codec';
import { codecOf } from '../fields/table';
import type { Projection } from '../grants/projection';
import type { ComponentSchema, Field } from '../registry/types';
import { componentSchemaName } from './component-schemas';
import type { DocumentContext } from './context';
import { object } from './schema';
import type { Ref, Schema } from './types';

/** `Input` for single writes, `AtomicInput` for atomic operations (their relations also take `{ "lid" }`). */
export type InputVariant = 'Input' | 'AtomicInput';

/** A field's schema with its label and null as its type admits (openapi/records.ts `fieldSchema`). */
export type FieldSchemaOf = (value: ValueSchema, field: Field) => Schema;

export type BaseKit = Omit<SchemaKit, 'componentInput' | 'dynamicZoneItemInput'>;

const requiredInValue = (field: Field): boolean => field.required && field.attribute.default === undefined;

/**
 * `base` with the component inputs of `variant`: the schemas of component values inside component values
 * are of the same variant (a lid may stand in a related-events section of an atomic operation's page).
 * `projection`: the resource's, whose `components` hold what the key sees of every component it reaches.
 */
export const withComponentInputs = (
  context: DocumentContext,
  projection: () => Projection,
  base: BaseKit,
  variant: InputVariant,
  fieldSchema: FieldSchemaOf,
): SchemaKit => {
  const kit: SchemaKit = {
    ...base,
    componentInput: (component) => componentInput(component),
    dynamicZoneItemInput: (field) => zoneItemInput(field),
  };

  const componentInput = (component: ComponentSchema): Ref => {
    const seen = projection().components.get(component.uid)!;
    return context.components.schema(`${componentSchemaName(context, seen, component)}.${variant}`, () =>
      object(
        Object.fromEntries(
          seen.readable.map((field) => [
            field.key,
            fieldSchema(codecOf(field).writeSchema(field, kit, { isSlug: false, action: 'create' }), field),
          ]),
        ),
        seen.readable.filter(requiredInValue).map((field) => field.key),
        {
          title: `${component.label} (input)`,
          description: `A new value of the component ${component.uid}: it replaces the stored one whole, and a field left out is empty (or its default).`,
        },
      ),
    );
  };

  const zoneItemInput = (field: Field): Schema => {
    const items = (field.components ?? []).map((component) => {
      const value = componentInput(component);
      const seen = projection().components.get(component.uid)!;
      // An entry without `attributes` is an empty value: allowed only where the component requires nothing
      // (`{ type: 'sections.hero' }` is a 422 "heading must be defined", so its type must not compile).
      const requires = seen.readable.some(requiredInValue);
      const name = `${componentSchemaName(context, seen, component)}.Item.${variant}`;
      const ref = context.components.schema(name, () =>
        object(
          { type: { type: 'string', const: component.uid, description: 'The component: `<category>.<name>`.' }, attributes: value },
          requires ? ['type', 'attributes'] : ['type'],
          {
            description: requires
              ? `A ${component.label} entry of a dynamic zone, as writes take it, with the fields its component requires.`
              : `A ${component.label} entry of a dynamic zone, as writes take it; no \`attributes\` is an empty value.`,
          },
        ),
      );
      return [component.uid, ref] as const;
    });
    return {
      oneOf: items.map(([, ref]) => ref),
      discriminator: { propertyName: 'type', mapping: Object.fromEntries(items.map(([uid, ref]) => [uid, ref.$ref])) },
    };
  };

  return kit;
};
