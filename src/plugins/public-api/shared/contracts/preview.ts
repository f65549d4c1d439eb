/**
 * The live preview (`POST /public-api/preview`): what a key with these grants would get from
 * /api/v2, computed by the API's own handlers before anything is saved. It also checks the grants:
 * invalid grants are not a failed request here but an answer (`issues`), since the form asks while
 * the admin is still typing.
 */
import type { FieldIssue } from './errors';
import type { GrantsInput } from './keys';

/** One answer of /api/v2 as the key would receive it. */
export type PreviewAnswer = {
  status: number;
  body: unknown;
};

export declare namespace PreviewKey {
  interface Request {
    body: {
      grants: GrantsInput;
      /** The saved key the preview stands for (its id), if any. */
      keyId?: number;
      /** The preview flag as the form has it (unsaved); the saved key's, or false, when absent. */
      preview?: boolean;
    };
  }
  interface Response {
    data: {
      apiBaseUrl: string;
      /** Why these grants cannot be saved, with the same paths a save would report; empty when valid. */
      issues: FieldIssue[];
      /** `GET /api/v2/`; null when the grants are invalid. */
      index: PreviewAnswer | null;
      /** `GET /api/v2/schema`; null when the grants are invalid or the API has no such endpoint. */
      openapi: PreviewAnswer | null;
    };
  }
}
