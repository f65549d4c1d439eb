import { useCallback } from 'react';
import { useIntl } from 'react-intl';
import { getTranslation } from '../pluginId';

type Values = Record<string, string | number | boolean | null | undefined | Date>;

/**
 * `t('keys.title', 'API keys')`: a message of the plugin, by id, with its English default. Every
 * string of the plugin's pages goes through it (translations/en.json holds the same defaults).
 */
export const useT = () => {
  const { formatMessage } = useIntl();
  return useCallback(
    (id: string, defaultMessage: string, values?: Values): string =>
      formatMessage({ id: getTranslation(id), defaultMessage }, values as Record<string, string | number>),
    [formatMessage],
  );
};

export type Translate = ReturnType<typeof useT>;
