import { Badge } from '@strapi/design-system';
import type { AdminKey } from '../../../shared/contracts/keys';
import { useT } from '../hooks/useT';
import { isExpired } from '../utils/expiry';

/** Active, expired or revoked: whether requests with the key are served. */
export const KeyStatus = ({ apiKey }: { apiKey: Pick<AdminKey, 'revoked' | 'expiresAt'> }) => {
  const t = useT();
  const [variant, label] = apiKey.revoked
    ? (['danger', t('key.status.revoked', 'Revoked')] as const)
    : isExpired(apiKey.expiresAt)
      ? (['warning', t('key.status.expired', 'Expired')] as const)
      : (['success', t('key.status.active', 'Active')] as const);
  // The darker text of each variant: the design system's default (e.g. danger600 on danger200) is 3.9:1.
  return (
    <Badge variant={variant} size="M" textColor={`${variant}700`} backgroundColor={`${variant}100`}>
      {label}
    </Badge>
  );
};
