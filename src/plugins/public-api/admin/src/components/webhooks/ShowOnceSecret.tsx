/**
 * An endpoint's signing secret right after it was made or rotated: shown once (ShowOnce). The server
 * keeps it sealed and never returns it again.
 */
import { ShowOnce } from '../ShowOnce';
import { useT } from '../../hooks/useT';

export const ShowOnceSecret = ({ secret, rotated }: { secret: string; rotated: boolean }) => {
  const t = useT();
  return (
    <ShowOnce
      value={secret}
      headingTag="h3"
      compact
      testIds={{ region: 'webhook-secret', value: 'webhook-secret-value' }}
      text={{
        region: t('webhooks.secret.region', 'Signing secret'),
        title: t('webhooks.secret.title', 'Copy the signing secret now'),
        warning: rotated
          ? t(
              'webhooks.secret.rotated',
              'This is the only time the new secret is shown. For 24 hours requests are signed with both the new and the previous secret, so the receiver can switch without losing events.',
            )
          : t(
              'webhooks.secret.warning',
              'This is the only time the secret is shown. The receiver verifies each request with it (Standard Webhooks). If you lose it, rotate it.',
            ),
        copy: t('webhooks.secret.copy', 'Copy secret'),
        copied: t('webhooks.secret.copied', 'The signing secret is copied to the clipboard.'),
        copyFailed: t('webhooks.secret.copyFailed', 'The secret could not be copied: select it and copy it by hand.'),
      }}
    />
  );
};
