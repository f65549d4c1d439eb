import { useRBAC } from '@strapi/strapi/admin';
import { PERMISSIONS } from '../../../shared/contracts/permissions';

const ALL = Object.values(PERMISSIONS).flat();

/** What the current admin may do in the section (the server checks again on every request). */
export const usePermissions = () => {
  const { allowedActions, isLoading } = useRBAC(ALL);
  return {
    isLoading,
    canRead: Boolean(allowedActions.canRead),
    canCreate: Boolean(allowedActions.canCreate),
    canUpdate: Boolean(allowedActions.canUpdate),
    canDelete: Boolean(allowedActions.canDelete),
    canRegenerate: Boolean(allowedActions.canRegenerate),
  };
};
