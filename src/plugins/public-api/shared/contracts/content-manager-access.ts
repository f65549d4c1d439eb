/**
 * An admin may grant, publish or preview only what they may do themselves in the Content Manager
 * (contract section 18). A change beyond that is refused with 403, Strapi's `ForbiddenError` envelope,
 * `details.reason` CONTENT_MANAGER_REFUSAL and `details.errors` (FieldIssue, errors.ts) naming the form
 * places (`preview`, `resources.<id>.read|write|actions`, `publications.<n>.contentType`).
 */
import type { FieldIssue } from './errors';

export const CONTENT_MANAGER_REFUSAL = 'content_manager_permissions';

/** GET /public-api/keys/:id/access: what the key holds that the signed-in admin may not do in the Content Manager. */
export declare namespace GetKeyAccess {
  interface Params {
    id: string;
  }
  interface Response {
    data: {
      /** Whether the admin may do all the key does: then they may widen it, regenerate it and add webhooks. */
      complete: boolean;
      /** One message per form place, as a refusal would name them; empty when complete. */
      issues: FieldIssue[];
    };
  }
}
