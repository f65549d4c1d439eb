/**
 * What writes take where reads send more: a related record or an asset named by id (or as reads show
 * it, so that a read value can be written back).
 */
import { MAX_REFERENCES_PER_WRITE } from '../fields/types/relation';
import type { Components } from './document-components';
import type { Ref } from './types';

/** A related record as writes take it: a bare id or slug, or an object naming it (a reference as reads show it, too). */
export const relationInput = (components: Components): Ref =>
  components.schema('RelationInput', () => ({
    description:
      'A related record: its id or slug as a string (tried as a slug first), or an object with `id` or `slug`. A reference or record as reads show it can be sent back.',
    oneOf: [
      { type: 'string', minLength: 1 },
      {
        type: 'object',
        properties: {
          id: { type: 'string', minLength: 1 },
          slug: { type: ['string', 'null'], minLength: 1 },
          collection: { type: 'string', description: 'When present, the related resource slug.' },
          type: { type: 'string', description: 'When present, the related resource slug.' },
        },
        anyOf: [
          { required: ['id'], properties: { id: { type: 'string' } } },
          { required: ['slug'], properties: { slug: { type: 'string' } } },
        ],
      },
    ],
  }));

/**
 * A change of a stored to-many list (updates only): `add` links records not linked yet, at the end, in
 * order; `remove` unlinks records. Adding a record already linked or removing one that is not changes
 * nothing; a record named twice, or in both, is 422. Works on lists longer than reads show.
 */
export const relationChanges = (components: Components): Ref =>
  components.schema('RelationListChange', () => ({
    description: `Changes a stored to-many list in place, however long it is (also one cut to 100 references on reads): \`add\` appends the records not linked yet, in order; \`remove\` unlinks records. Adding a linked record or removing an unlinked one changes nothing. At most ${MAX_REFERENCES_PER_WRITE} references in \`add\` and \`remove\` together.`,
    type: 'object',
    properties: {
      add: {
        type: 'array',
        items: relationInput(components),
        maxItems: MAX_REFERENCES_PER_WRITE,
        description: 'Records to link, appended in this order.',
      },
      remove: { type: 'array', items: relationInput(components), maxItems: MAX_REFERENCES_PER_WRITE, description: 'Records to unlink.' },
    },
    minProperties: 1,
    additionalProperties: false,
  }));

/** An existing asset: its id, or an object with it (an asset object as reads show it). */
export const assetInput = (components: Components): Ref =>
  components.schema('AssetInput', () => ({
    description: 'An existing asset: its id, or an object with its `id` (an asset object as reads show it can be sent back).',
    oneOf: [
      { type: 'string', minLength: 1 },
      { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } },
    ],
  }));

/** In an atomic operation, a related record may also be one an earlier operation added: `{ "lid" }`. */
export const atomicRelationInput = (components: Components): Ref =>
  components.schema('AtomicRelationInput', () => ({
    description:
      'A related record as `RelationInput` names it, or `{ "lid" }`: the record an earlier operation of the same atomic request added with that lid.',
    oneOf: [
      relationInput(components),
      {
        type: 'object',
        required: ['lid'],
        properties: {
          lid: { type: 'string', minLength: 1 },
          collection: { type: 'string', description: 'When present, the related resource slug.' },
          type: { type: 'string', description: 'When present, the related resource slug.' },
        },
        // A lid beside an id is refused (422): the record is named once.
        not: { required: ['id'], properties: { id: {} } },
      },
    ],
  }));

/** `RelationListChange` whose references may be lids (atomic operations). */
export const atomicRelationChanges = (components: Components): Ref =>
  components.schema('AtomicRelationListChange', () => ({
    description: 'A change of a stored to-many list, as `RelationListChange`, whose references may also be `{ "lid" }`.',
    type: 'object',
    properties: {
      add: { type: 'array', items: atomicRelationInput(components), maxItems: MAX_REFERENCES_PER_WRITE },
      remove: { type: 'array', items: atomicRelationInput(components), maxItems: MAX_REFERENCES_PER_WRITE },
    },
    minProperties: 1,
    additionalProperties: false,
  }));
