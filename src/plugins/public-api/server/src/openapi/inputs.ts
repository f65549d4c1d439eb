/**
 * What writes take where reads send more: a related record or an asset named by id (or as reads show
 * it, so that a read value can be written back).
 */
import type { Components } from './components';
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

/** An existing asset: its id, or an object with it (an asset object as reads show it). */
export const assetInput = (components: Components): Ref =>
  components.schema('AssetInput', () => ({
    description: 'An existing asset: its id, or an object with its `id` (an asset object as reads show it can be sent back).',
    oneOf: [
      { type: 'string', minLength: 1 },
      { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } },
    ],
  }));
