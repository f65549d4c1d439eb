/**
 * Admin routes for API keys (`/public-api/keys`). A key's plaintext appears exactly once: in the
 * response that created or regenerated it.
 */
import type { GrantAction } from './registry';

export type ResourceGrant = {
  actions: GrantAction[];
  read: string[];
  write: string[];
};

export type KeyGrants = {
  resources: Record<string, ResourceGrant>;
  commands: string[];
  origins: string[];
};

/** Grants as a form sends them: field lists may be `*` (every field that exists now). */
export type GrantsInput = {
  resources: Record<string, { actions: GrantAction[]; read: string[] | '*'; write: string[] | '*' }>;
  commands: string[];
  origins: string[];
};

/** A key's own rate limit: at most `requests` requests in each window of `window` seconds. */
export type KeyLimits = { requests: number; window: number };

/** A key's shared-cache policy: CDNs may keep its 200 GETs for `sharedMaxAge` seconds (contract section 14). */
export type KeyCache = { sharedMaxAge: number };

export type AdminKey = {
  id: number;
  documentId: string;
  name: string;
  description: string | null;
  /** `pdk_<keyId>`: shown with the last four characters, never the secret. */
  prefix: string;
  lastFour: string;
  grants: KeyGrants;
  /** The key's own rate limit; null: the default of the plugin config. */
  limits: KeyLimits | null;
  /** The key's shared-cache policy; null: its responses are `private, no-cache`. */
  cache: KeyCache | null;
  /**
   * A preview key may read drafts (`status=draft`: the latest draft of each record, answered
   * `Cache-Control: no-store`; contract section 15). Meant for editors' preview sites, never a public site.
   */
  preview: boolean;
  expiresAt: string | null;
  revoked: boolean;
  lastUsedAt: string | null;
  createdAt: string;
  updatedAt: string;
};

export type KeyDetailsInput = {
  name: string;
  description: string | null;
  /** ISO 8601 date-time in the future, or null for a key that never expires. */
  expiresAt: string | null;
  /**
   * `{ requests, window }`: the budget, 1 to 1,000,000 cost units per 1 to 86,400 seconds (the field keeps its
   * name: every request spends one unit, and more for its work, docs/api.md *What a request costs*), or null
   * for the default.
   */
  limits?: KeyLimits | null;
  /** `{ sharedMaxAge }` (1 to 31,536,000 seconds), or null for a key whose responses are not shared. */
  cache?: KeyCache | null;
  /** Whether the key may read drafts (`status=draft`); false when absent on create. */
  preview?: boolean;
};

export declare namespace ListKeys {
  interface Response {
    data: AdminKey[];
  }
}

export declare namespace GetKey {
  interface Params {
    id: string;
  }
  interface Response {
    data: AdminKey;
  }
}

export declare namespace CreateKey {
  interface Request {
    body: KeyDetailsInput & { grants: GrantsInput };
  }
  interface Response {
    data: AdminKey;
    /** The key itself, shown once and never stored. */
    meta: { plaintext: string };
  }
}

export declare namespace UpdateKey {
  interface Params {
    id: string;
  }
  interface Request {
    body: Partial<KeyDetailsInput> & { grants?: GrantsInput };
  }
  interface Response {
    data: AdminKey;
  }
}

export declare namespace RevokeKey {
  interface Params {
    id: string;
  }
  interface Response {
    data: AdminKey;
  }
}

export declare namespace RegenerateKey {
  interface Params {
    id: string;
  }
  interface Response {
    data: AdminKey;
    meta: { plaintext: string };
  }
}

export declare namespace DeleteKey {
  interface Params {
    id: string;
  }
  interface Response {
    data: AdminKey;
  }
}
