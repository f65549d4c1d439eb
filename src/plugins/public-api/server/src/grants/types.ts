import type { KeyGrants, ResourceGrant } from '../../../shared/contracts/keys';
import { GRANT_ACTIONS, type GrantAction } from '../../../shared/contracts/registry';

export const ACTIONS = GRANT_ACTIONS;
export type Action = GrantAction;

/** One resource's grant as stored on a key (field lists are concrete names, never `*`), and all of a key's grants. */
export type { KeyGrants, ResourceGrant };
