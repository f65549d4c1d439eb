import type { AdminKey } from '../../../shared/contracts/keys';
import { useT } from '../hooks/useT';
import { isExpired } from '../utils/expiry';
import { StatusBadge } from './StatusBadge';

/** Active, expired or revoked: whether requests with the key are served. */
export const KeyStatus = ({ apiKey }: { apiKey: Pick<AdminKey, 'revoked' | 'expiresAt'> }) => {
  const t = useT();
  const [tone, label] = apiKey.revoked
    ? (['danger', t('key.status.revoked', 'Revoked')] as const)
    : isExpired(apiKey.expiresAt)
      ? (['warning', t('key.status.expired', 'Expired')] as const)
      : (['success', t('key.status.active', 'Active')] as const);
  return <StatusBadge tone={tone}>{label}</StatusBadge>;
};
