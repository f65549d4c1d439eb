/**
 * The key's plaintext, right after it was created or regenerated: shown once (ShowOnce). Only a hash of
 * it is stored. `copyRef` is the copy button, where the page puts the focus when the key appears.
 */
import type { Ref } from 'react';
import { useT } from '../hooks/useT';
import { ShowOnce } from './ShowOnce';

export const ShowOnceKey = ({ plaintext, copyRef }: { plaintext: string; copyRef?: Ref<HTMLButtonElement> }) => {
  const t = useT();
  return (
    <ShowOnce
      value={plaintext}
      headingTag="h2"
      copyRef={copyRef}
      testIds={{ region: 'show-once-key', value: 'plaintext-key', copy: 'copy-key' }}
      text={{
        region: t('key.once.region', 'New API key'),
        title: t('key.once.title', 'Copy this key now'),
        warning: t(
          'key.once.warning',
          'This is the only time the key is shown. Only a hash of it is stored: if you lose it, regenerate the key and update every client that uses it.',
        ),
        copy: t('key.once.copy', 'Copy key'),
        copied: t('key.once.copied', 'The key is copied to the clipboard.'),
        copyFailed: t('key.once.copyFailed', 'The key could not be copied: select it and copy it by hand.'),
      }}
    />
  );
};
