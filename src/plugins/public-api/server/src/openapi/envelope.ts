/**
 * The JSON:API envelope every document of /api/v2 carries: the top-level `jsonapi` member.
 */
import type { Components } from './document-components';
import { object } from './schema';
import type { Ref } from './types';

export const jsonApi = (c: Components): Ref =>
  c.schema('JsonApi', () =>
    object({ version: { type: 'string', const: '1.1', description: 'The JSON:API version: always 1.1.' } }, ['version'], {
      description: 'The top-level `jsonapi` member.',
    }),
  );
