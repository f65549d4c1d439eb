/**
 * What every part of the document builder needs: the components being filled, the key's projections
 * and the names handed out.
 */
import type { Projection } from '../grants/projection';
import type { KeyGrants } from '../grants/types';
import type { Resource } from '../registry/types';
import type { Components } from './document-components';

export type DocumentContext = {
  components: Components;
  grants: KeyGrants;
  /** The configured locale codes (for localized resources). */
  locales: readonly string[];
  /** `<Resource>` of an exposed resource. */
  nameOf: (resource: Resource) => string;
  /** The key's projection of a resource (memoized). */
  projectionOf: (resource: Resource) => Projection;
  /** Whether the key is a preview key: only then do reads list `status` and records `meta.status`. */
  preview: boolean;
};
