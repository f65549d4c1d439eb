/**
 * The admin's one way to report a refused request (utils/errors.ts reads it): a danger notification with
 * the server's word, and, given where to put them, the messages under the fields the refusal names.
 */
import { useCallback } from 'react';
import { useNotification } from '@strapi/strapi/admin';
import { refusalOf, type FieldErrors } from '../utils/errors';
import { useT } from './useT';

export const useRefusal = () => {
  const t = useT();
  const { toggleNotification } = useNotification();
  return useCallback(
    (error: unknown, showFieldErrors?: (errors: FieldErrors) => void): void => {
      const text = {
        invalid: t('form.invalid', 'Some values are not valid: see the messages under the fields.'),
        failed: t('common.error', 'Something went wrong.'),
      };
      const { fieldErrors, message } = refusalOf(error, text, showFieldErrors !== undefined);
      if (fieldErrors) showFieldErrors?.(fieldErrors);
      toggleNotification({ type: 'danger', message });
    },
    [t, toggleNotification],
  );
};
