/**
 * The asset object reads send for media fields (serialize/assets.ts).
 */
import type { Components } from './document-components';
import { object } from './schema';
import type { Ref } from './types';

export const asset = (c: Components): Ref =>
  c.schema('Asset', () =>
    object(
      {
        id: { type: 'string' },
        url: { type: 'string', format: 'uri', description: 'Absolute and stable: `{base_url}/assets/{token}/{fileName}`.' },
        fileName: { type: 'string' },
        mimeType: { type: 'string' },
        size: { type: 'integer', minimum: 0, description: 'Bytes.' },
        width: { type: ['integer', 'null'], description: 'Pixels; null for files that are not images.' },
        height: { type: ['integer', 'null'], description: 'Pixels; null for files that are not images.' },
        alt: { type: ['string', 'null'] },
        caption: { type: ['string', 'null'] },
      },
      undefined,
      { description: 'A file referenced from content.' },
    ),
  );
